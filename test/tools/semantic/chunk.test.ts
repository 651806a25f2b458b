// Chunks are what search answers with: each must start at a declaration (with its comment) or a
// heading, name what it declares, and stay within the size limits.
import { expect, test } from "bun:test"
import { chunkFile, MAX_LINES } from "../../../src/tools/semantic/chunk.ts"
import { indexWords, queryTerms, splitIdentifier } from "../../../src/tools/semantic/terms.ts"

const summary = (path: string, text: string) => chunkFile(path, text).map((c) => `${c.start}-${c.end} ${c.symbols.join(",")}`)

const filler = (n: number, indent = "  ") => Array.from({ length: n }, (_, i) => `${indent}total += step${i} * factor`).join("\n")

test("TypeScript: a chunk per top-level declaration, its doc comment included", () => {
  const text = [
    'import { x } from "./x"', // 1
    "", // 2
    "/** Parses a request. */", // 3
    "export function parseRequest(raw: string) {", // 4
    filler(8), // 5-12
    "}", // 13
    "", // 14
    "// The cache of sessions.", // 15
    "export class SessionCache {", // 16
    filler(8), // 17-24
    "}", // 25
    "export const retryLimit = (n: number) => n * 2", // 26
    "export type Token = string", // 27
  ].join("\n")
  expect(summary("src/a.ts", text)).toEqual(["1-13 parseRequest", "15-27 SessionCache,retryLimit,Token"])
})

test("a declaration longer than the limit is split again at its members", () => {
  const method = (name: string) => [`  async ${name}(input: string): Promise<void> {`, filler(30, "    "), "  }"].join("\n")
  const text = ["export class Big {", method("first"), method("second"), method("third"), "}"].join("\n")
  const chunks = chunkFile("big.ts", text)
  expect(chunks.map((c) => `${c.start}-${c.end} ${c.symbols.join(",")}`)).toEqual(["1-33 Big,first", "34-65 second", "66-98 third"])
  for (const chunk of chunks) expect(chunk.end - chunk.start + 1).toBeLessThanOrEqual(MAX_LINES)
})

test("Python, Go, Rust, Ruby, shell and Markdown are cut where their declarations and headings start", () => {
  const body = (prefix: string) => Array.from({ length: 7 }, (_, i) => `${prefix}x${i} = ${i}`).join("\n")
  expect(summary("a.py", ["import os", "", "class Loader:", body("    "), "", "def load_config(path):", body("    ")].join("\n"))).toEqual(["1-10 Loader", "12-19 load_config"])
  expect(summary("a.go", ["package main", "", "func (s *Server) ServeHTTP(w Writer) {", body("\t"), "}", "type Router struct {", body("\t"), "}"].join("\n"))).toEqual([
    "1-11 ServeHTTP",
    "12-20 Router",
  ])
  expect(summary("a.rs", ["use std::io;", "", "pub fn read_all() {", body("    let "), "}", "impl Display for Token {", body("    let "), "}"].join("\n"))).toEqual([
    "1-11 read_all",
    "12-20 Token",
  ])
  expect(summary("a.rb", ["module Billing", "  def charge_card(amount)", body("    "), "  end", "  def refund(amount)", body("    "), "  end", "end"].join("\n"))).toEqual([
    "1-10 Billing,charge_card",
    "11-20 refund",
  ])
  expect(summary("run.sh", ["#!/bin/sh", "", "build_image() {", body("  "), "}", "deploy() {", body("  "), "}"].join("\n"))).toEqual(["1-11 build_image", "12-20 deploy"])
  const md = ["# Title", "intro", "", "## Install", body(""), "", "```sh", "# not a heading", "```", "## Usage", body("")].join("\n")
  expect(summary("README.md", md)).toEqual(["1-15 Title,Install", "16-23 Usage"])
})

test("a file of no known language is cut into windows at blank lines", () => {
  const text = Array.from({ length: 200 }, (_, i) => (i % 10 === 5 ? "" : `line ${i}`)).join("\n")
  const chunks = chunkFile("notes.txt", text)
  expect(chunks.length).toBe(3)
  // The first window would end at line 80; it ends before the blank line 76 instead.
  expect(chunks[0]).toMatchObject({ start: 1, end: 75, symbols: [] })
  expect(chunks.at(-1)!.end).toBe(200)
})

test("identifiers are indexed whole and split at camelCase, snake_case and digits", () => {
  expect(splitIdentifier("parseHTTPRequest2Body")).toEqual(["parse", "http", "request", "2", "body"])
  expect(splitIdentifier("MAX_RETRY_COUNT")).toEqual(["max", "retry", "count"])
  expect(indexWords("const utf8Decoder = new TextDecoder()")).toBe("const utf8decoder utf decoder new textdecoder text decoder")
  expect(queryTerms("where is the HTTP request parsed?")).toEqual(["http", "request", "parsed"])
  expect(queryTerms("parseHttpRequest")).toEqual(["parsehttprequest", "parse", "http", "request"])
})

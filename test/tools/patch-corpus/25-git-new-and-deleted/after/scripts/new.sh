#!/bin/sh
set -e
echo new

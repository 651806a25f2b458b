#!/bin/sh
npm test

#!/bin/sh
start=`date +%s`
npm test -- --reporter="${REPORTER:-dot}"
echo "took $(( `date +%s` - start ))s"

step one
  check
  done 1
step two
  check
  done 2
step three
  check
  done 3

step one
  check
  done
step two
  check
  done
step three
  check
  done

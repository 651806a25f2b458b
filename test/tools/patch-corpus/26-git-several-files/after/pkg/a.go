package pkg

func A() int {
	return 10
}

func B() int {
	return 20
}

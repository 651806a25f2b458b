function f() {
	if (x) {
		y()
	}
}

func main() {
	fmt.Println("start")
	run()
}

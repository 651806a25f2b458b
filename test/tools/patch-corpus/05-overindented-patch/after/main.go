func main() {
	fmt.Println("start")
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

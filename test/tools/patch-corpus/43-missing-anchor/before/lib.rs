fn parse() {
    todo!()
}

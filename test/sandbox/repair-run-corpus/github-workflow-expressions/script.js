await writeFile({
  path: ".github/workflows/ci.yml",
  content: `name: ci
on: [push]
jobs:
  test:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        node: [20, 22]
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: ${{ matrix.node }}
      - run: npm ci && npm test
        env:
          TOKEN: ${{ secrets.TOKEN }}
`,
})

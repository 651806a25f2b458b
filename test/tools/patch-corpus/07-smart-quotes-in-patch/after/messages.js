export const messages = {
  welcome: "Welcome, it's good to see you",
  range: "pages 1-10",
  bye: 'See you soon',
}

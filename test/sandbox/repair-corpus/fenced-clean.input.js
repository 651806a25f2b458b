
```javascript
const files = await ls("src")
console.log(files.join("\n"))
```

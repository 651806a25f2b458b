const out = await applyPatch(
  `*** Begin Patch
*** Add File: .env.example
+# copy to .env
+DATABASE_URL=postgres://localhost/${DB_NAME:-app}
+GREETING=`hello`
*** End Patch`,
)
console.log(out)

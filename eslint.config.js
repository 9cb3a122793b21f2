// Lint for the whole tree (`npm run lint`, run by `npm test`): ESLint's and typescript-eslint's
// recommended rules with type information. Every rule turned off or relaxed below says why.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["**/dist/**", "**/node_modules/**", "devnet/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    files: ["**/*.ts"],
    languageOptions: {
      parserOptions: {
        // The same programs tsc checks. The test tree's comes first: it reaches every package's
        // sources too, so most files share one program (half the time of one program per package).
        project: ["./tsconfig.test.json", "./bench/tsconfig.json", "./packages/*/tsconfig.json"],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // `_name` marks a parameter or binding kept for its position; `{ dropped, ...rest }` omits fields.
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", ignoreRestSiblings: true }],
      // Off: the code writes `xs[i]!` on purpose where an index is in range by construction (the
      // reader's cue, and what `noUncheckedIndexedAccess` would demand); with that compiler option off
      // the rule reports all ~320 of them as redundant, drowning the few redundant casts it also finds.
      "@typescript-eslint/no-unnecessary-type-assertion": "off",
      // Off: an `async` function without `await` is how this code implements a Promise-returning
      // interface (backends, test doubles, mutex callbacks) so that a throw becomes a rejection, not
      // a synchronous exception the caller does not expect.
      "@typescript-eslint/require-await": "off",
      // Forwarding a rejection reason received from elsewhere (`signal.reason`, a caught `e`) is fine;
      // constructing a non-Error reason is what the rule is for.
      "@typescript-eslint/prefer-promise-reject-errors": ["error", { allowThrowingAny: true, allowThrowingUnknown: true }],
    },
  },
  {
    // Tests and benchmarks read untyped JSON answers and print values in failure messages.
    files: ["packages/*/test/**", "test/**", "bench/**"],
    rules: {
      // JSON bodies are `any`/`unknown` by nature there; the assertions check their shape.
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      // "[object Object]" in a test's message only makes a failure message worse, never a result wrong.
      "@typescript-eslint/no-base-to-string": "off",
      // Tests save and restore methods of test doubles (`const original = backend.metrics`).
      "@typescript-eslint/unbound-method": "off",
    },
  },
  {
    // The web page's views print fields of the node's JSON answers (strings and numbers by the
    // API's schema, docs/api.md): "[object Object]" there would be visible text, never a wrong result.
    files: ["packages/web/src/pages/**"],
    rules: { "@typescript-eslint/no-base-to-string": "off" },
  },
  {
    files: ["**/*.js", "**/*.cjs", "**/*.mjs"],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { process: "readonly", URL: "readonly", console: "readonly" },
    },
  },
  {
    files: ["**/*.cjs"],
    languageOptions: { sourceType: "commonjs", globals: { module: "writable", require: "readonly", __dirname: "readonly" } },
    // CommonJS files load their dependencies with require().
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
);

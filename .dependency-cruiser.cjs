/**
 * Import boundaries, checked by `npm run check:deps` (run by `npm test`). The layers, lowest first
 * (a package may import only packages in lower layers, and only through their package name):
 *
 *   0  verify, crypto          no workspace imports
 *   1  protocol                verify, crypto
 *   2  state, consensus        + protocol
 *   3  network, api            + state, consensus
 *   4  node                    + network, api
 *   5  cli                     anything below (it wires the node and uses network and consensus
 *                              helpers directly for the devnet: allowed, since cli is the top)
 *   -  web                     browser page; verify only (api serves its built files by path)
 *
 * The layers bind the sources (packages/x/src); a package's tests may also import packages above it
 * (verify's tests check its proofs against the node's own protocol and api code).
 *
 * No cycles anywhere: between packages or between modules inside one (type-only imports count too:
 * a type cycle is a design cycle).
 * @type {import('dependency-cruiser').IConfiguration}
 */
const LAYERS = [
  ["verify", "crypto"],
  ["protocol"],
  ["state", "consensus"],
  ["network", "api"],
  ["node"],
  ["cli"],
];

/** One rule per layer: nothing in it imports a package of its own layer (other than itself) or above. */
const layerRules = LAYERS.map((layer, i) => {
  const notBelow = LAYERS.slice(i).flat();
  return {
    name: `layer-${i}-${layer.join("-")}`,
    comment: `${layer.join(", ")} may import only packages of lower layers (see the table at the top of .dependency-cruiser.cjs)`,
    severity: "error",
    from: { path: `^packages/(${layer.join("|")})/src/` },
    to: { path: `^packages/(${notBelow.join("|")})/`, pathNot: "^packages/$1/" },
  };
});

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "a module must not reach itself again through its imports (type-only imports included)",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    ...layerRules,
    {
      name: "web-imports-verify-only",
      comment: "the browser page uses @anchord/verify and nothing else of the node",
      severity: "error",
      from: { path: "^packages/web/" },
      to: { path: "^packages/", pathNot: "^packages/(web|verify)/" },
    },
    {
      name: "no-relative-import-across-packages",
      comment: "packages import each other through their package name (@anchord/x), never by a relative path",
      severity: "error",
      from: { path: "^packages/([^/]+)/" },
      to: { dependencyTypes: ["local"], path: "^packages/", pathNot: "^packages/$1/" },
    },
    {
      name: "no-deep-import-of-a-package",
      comment: "another package is reached only through its entry point (its package.json exports)",
      severity: "error",
      from: { path: "^packages/([^/]+)/" },
      to: { path: "^packages/([^/]+)/", pathNot: ["^packages/$1/", "^packages/[^/]+/src/index\\.ts$", "^packages/web/index\\.cjs$"] },
    },
    {
      name: "not-to-unresolvable",
      comment: "an import that does not resolve is a typo or a missing dependency",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: ["(^|/)dist/", "(^|/)node_modules/"] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.test.json" },
    // Workspace packages resolve to their sources, as vitest resolves them.
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["source", "import", "require", "node", "default", "types"],
      extensions: [".ts", ".js", ".cjs", ".mjs", ".json"],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};

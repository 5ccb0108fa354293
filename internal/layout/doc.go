// Package layout holds tests over how the repository's modules and
// internal packages depend on each other; it has no API and nothing
// imports it. Its tests check that:
//
//   - no non-test package of the main module depends on a test library
//     (rapid, goleak, testify), so a program that requires recur builds
//     none of them;
//   - no nested module (the adapters, the metrics modules, bench,
//     cmd/schedcheck and the test-only modules) imports the main module's
//     internal packages, which are free to change between releases;
//   - the test kits (internal/schedgen, internal/leakcheck) are imported
//     from _test.go files only;
//   - each copy that cmd/schedcheck or capi keeps of an internal package is
//     the same as its original but for import paths.
//
// make lint runs them.
package layout

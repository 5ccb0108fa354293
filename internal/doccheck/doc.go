// Package doccheck holds tests over the project's user-facing text: the
// README, docs/, examples/ and the comments of every Go file. It has no
// API; its tests keep internal jargon out of that text and keep the Go
// snippets in the Markdown compiling. Nothing imports it.
package doccheck

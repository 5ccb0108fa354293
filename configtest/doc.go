// Package configtest holds the tests of parse.Policy with the
// configuration libraries Go programs use, in a module of its own so that
// none of them enters the main module's go.mod. It has no API.
package configtest

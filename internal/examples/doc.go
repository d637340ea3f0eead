// Package examples holds no code: its tests build the five commands and run, against them, every
// README example marked "runs as written", the script behind `make demo` and every example of the
// commands' --help (the judge model and the embedding server loopback ones), check the
// figures the README quotes from runs on the shipped samples and the flags of every README command
// line, those that need a key included, check that every command's --help prose is wrapped at
// the width of the rest, and that each refuses an input its stdout appends to (`>> x.jsonl`).
// `go test -short` skips them.
package examples

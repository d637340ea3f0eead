// Package examples holds no code: its tests build the five commands and run, against them, every
// README example marked "runs as written" and the script behind `make demo`, so that the
// documentation's commands stay true, and check that every command's --help prose is wrapped at
// the width of the rest. `go test -short` skips them.
package examples

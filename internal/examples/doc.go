// Package examples holds no code: its tests build the five commands and run, against them, every
// README example marked "runs as written" and the script behind `make demo`, so that the
// documentation's commands stay true. `go test -short` skips them.
package examples

package clitest

import "io"

// ThenAtEOF returns a reader that reads r, then calls f when the input ends: a test's way to make
// a signal arrive while a command waits on its last read.
func ThenAtEOF(r io.Reader, f func()) io.Reader { return io.MultiReader(r, atEOF(f)) }

// atEOF calls itself at every read and reports the end of the input.
type atEOF func()

func (f atEOF) Read([]byte) (int, error) { f(); return 0, io.EOF }

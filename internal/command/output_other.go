//go:build !unix

package command

import (
	"errors"
	"os"
)

// dupDescriptor opens path as any output file where there are no descriptors to duplicate.
func dupDescriptor(path string, _ int) (*os.File, error) { return CreateOutput(path) }

// nullForBoth reports whether fd is the null device open for reading and writing; no descriptor
// is known to be here.
func nullForBoth(int) bool { return false }

// dupStdout fails where there are no descriptors to duplicate: stdout is os.Stdout itself.
func dupStdout() (*os.File, error) { return nil, errors.ErrUnsupported }

// linked reports whether the file st describes has other names; none are known here.
func linked(os.FileInfo) bool { return false }

// keepOwner keeps the owner of the file st describes; there is none to keep here.
func keepOwner(*os.File, os.FileInfo) error { return nil }

// fileID reports no identity: inputFiles.add then compares a file with every earlier one
// (os.SameFile).
func fileID(os.FileInfo) (id [2]uint64, ok bool) { return id, false }

//go:build !unix

package command

import "os"

// dupDescriptor opens path as any output file where there are no descriptors to duplicate.
func dupDescriptor(path string, _ int) (*os.File, error) { return CreateOutput(path) }

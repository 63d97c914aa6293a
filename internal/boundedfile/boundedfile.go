// Package boundedfile reads a file no larger than a limit: a device
// (/dev/zero) or a mistaken file named where a small one belongs is
// refused, never read whole.
package boundedfile

import (
	"fmt"
	"io"
	"os"
)

// Read returns the content of the file at path, or an error when it
// holds more than limit bytes. A regular file over the limit is refused
// from its size, without being read; another file (a device, a pipe) is
// read no further than one byte past the limit.
func Read(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > limit {
		return nil, tooLarge(path, limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, tooLarge(path, limit)
	}
	return data, nil
}

func tooLarge(path string, limit int64) error {
	return fmt.Errorf("%s is larger than %d bytes", path, limit)
}

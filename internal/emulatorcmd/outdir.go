package emulatorcmd

import (
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// prepareOut makes the -out directory (mode 0700) unless it exists, and
// refuses one the credentials must not go to: a symbolic link, not a
// directory, owned by another user, or writable by the group or others
// (another user could then swap or read the key files; /tmp itself is
// refused). See ownedByMe for what "owned" means on each system.
func prepareOut(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("-out %s is a symbolic link; give the directory itself", dir)
	case !fi.IsDir():
		return fmt.Errorf("-out %s is not a directory", dir)
	case !ownedByMe(fi):
		return fmt.Errorf("-out %s belongs to another user; use a directory of your own", dir)
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("-out %s can be written by other users (mode %04o); use a directory only you can write (chmod go-w)", dir, fi.Mode().Perm())
	}
	return nil
}

// writePEM writes the PEM block to file with mode, never through a
// symbolic link: the bytes go to a new file of a random name in the same
// directory (created exclusively, so nothing there can be followed), and
// a rename puts it in place, replacing whatever file, or link, had that
// name.
func writePEM(file, typ string, der []byte, mode os.FileMode) error {
	return writeFile(file, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), mode)
}

// writeFile writes data to file with mode, the way writePEM does.
func writeFile(file string, data []byte, mode os.FileMode) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(mode); err != nil {
		_ = tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if fi, err := os.Lstat(file); err == nil && fi.IsDir() {
		return errors.New(file + " is a directory")
	}
	return os.Rename(tmp.Name(), file)
}

package store

// WritePerFile makes st write every value, Update's included, through a
// new file, for the conformance test of that path: each write creates a
// file, syncs it, renames it and syncs the directory (as Put does outside
// Linux); no file is reused and no Update is written in place.
func WritePerFile(st *FileStore) { st.shareSyncs, st.reuse, st.inPlace = false, false, false }

// Opened counts the value files st opened to read them.
func Opened(st *FileStore) int64 { return st.opened.Load() }

// LimitKnownNames bounds the value files whose key st keeps in memory to
// n, in place of maxKnownNames.
func LimitKnownNames(st *FileStore, n int) { st.names.limit = n }

// KnownNames counts the value files whose key st keeps in memory.
func KnownNames(st *FileStore) int {
	st.names.mu.Lock()
	defer st.names.mu.Unlock()
	return len(st.names.m)
}

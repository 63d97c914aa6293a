package store

// WritePerFile makes st write as it does outside Linux, for the
// conformance test of that path: each write creates a file, syncs it,
// renames it and syncs the directory; no file is reused.
func WritePerFile(st *FileStore) { st.shareSyncs, st.reuse = false, false }

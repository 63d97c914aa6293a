package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"iter"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// File store layout: one file per key, named by the SHA-256 of the key, so
// no key can name a path outside the directory. A file (format version 3)
// holds fileMagic, a slot size, and two slots of that size. A slot holds
// a sequence number, the length of its content, a CRC-32C of both and of
// the content, and the content: the expiry in Unix nanoseconds or 0, the
// key's length and the key itself (so that Keys can list keys and a hash
// collision is detected), then the value. The slot with the higher
// sequence number whose CRC holds is the file's value. Version 1 and 2
// files hold one such content after a header, without slots; the store
// still reads them.
//
// A new file, or a value that no longer fits its slot, is written to a
// temporary file (a spare, see file_spare.go, or a new file), synced, and
// renamed over the old file; the directory is synced after the rename
// (see file_durable.go). Update writes a value that fits in place: into
// the slot that does not hold the current value, then syncs the file's
// data (see writeInPlace). Temporary names start with tmpPrefix and are
// never read as values. Every key belongs to one of lockShards shards;
// the shard's lock file (lockPrefix and two hex digits) is what processes
// lock. Readers without that lock take a shared flock on the value file
// they read (see readOnce); a writer in place holds it exclusively while
// it writes.
const (
	valueSuffix = ".val"
	tmpPrefix   = ".tmp-"
	takePrefix  = ".take-"
	lockPrefix  = ".lock-"
	// fileMagic starts every value file the store writes (format
	// version 3: two slots, see above).
	fileMagic = "psd2store3\n"
	// fileMagicV2 starts the value files of format version 2 (the layout
	// of version 1, in a file that may be reused, see file_spare.go),
	// which the store reads and reuses.
	fileMagicV2 = "psd2store2\n"
	// fileMagicV1 starts the value files of format version 1, which the
	// store reads and never reuses.
	fileMagicV1 = "psd2store1\n"
	// headerLen is the fixed part of a version 1 or 2 header: magic,
	// expiry, key length.
	headerLen = len(fileMagic) + 8 + 4
	// slotsAt is where the first slot of a version 3 file starts, after
	// the magic and the slot size.
	slotsAt = len(fileMagic) + 4
	// slotHeaderLen is the fixed part of a slot: sequence number, length,
	// CRC-32C.
	slotHeaderLen = 8 + 4 + 4
	// contentHeaderLen is the fixed part of a slot's content: expiry and
	// key length.
	contentHeaderLen = 8 + 4
	// minSlot is the smallest slot; slots are multiples of it.
	minSlot = 512
	// maxSlot bounds the slot size a file may declare: the largest
	// content with the room writes leave for growth.
	maxSlot = 2 * (slotHeaderLen + contentHeaderLen + MaxKeyLen + MaxValueLen)
	// staleTemp is the age after which the store removes leftover
	// temporary files of writers that crashed.
	staleTemp = time.Hour
	// lockShards is the number of lock shards: keys of different shards
	// are written in parallel, keys of one shard one after the other (in
	// the process and across processes). A power of two, at most 256.
	lockShards = 64
	// dirPermMask: the store refuses a directory with any of these
	// permission bits (group or other access). ASSUMPTION (safe choice):
	// sessions hold PSU ids, so the directory must be private to the TPP's
	// user, not only closed to writers; the store does not chmod a
	// directory it did not make.
	dirPermMask = 0o077
	// The sweep that writes run (see sweeper): every fileSweepEvery
	// writes of one FileStore, the writer that reaches it reads the next
	// fileSweepSlice entries of the directory and removes the expired
	// ones, so that the directory stays bounded by the live entries even
	// when no one reads the expired ones; a pass over the directory
	// starts at most every fileSweepPass writes.
	fileSweepEvery = 64
	fileSweepSlice = 256
	fileSweepPass  = 1024
)

// ErrUnsafeStore is matched (errors.Is) by every [*UnsafeStoreError].
var ErrUnsafeStore = errors.New("store: file store path is not safe")

// UnsafeStoreError is returned by [NewFileStore] for a directory it
// refuses, and by a [FileStore]'s methods for an entry of the directory
// they refuse to use. See [NewFileStore] for the rules.
type UnsafeStoreError struct {
	// Path is the directory or the entry.
	Path string
	// Reason says what is wrong, for example "is a symbolic link".
	Reason string
}

// Error returns one line naming the path and the reason.
func (e *UnsafeStoreError) Error() string {
	return "store: file store: " + e.Path + " " + e.Reason
}

// Is matches [ErrUnsafeStore].
func (e *UnsafeStoreError) Is(target error) bool { return target == ErrUnsafeStore }

// ErrCorrupt is matched by the error of a [FileStore] method that found a
// value file it cannot read: not in the store's format, cut short, or
// holding another key than its name says. The error names the file.
var ErrCorrupt = errors.New("store: file store entry is not readable")

// FileStore is a [Store] keeping one file per key in a directory (mode
// 0700, files 0600). Several processes on one machine, or on machines
// sharing the directory over a file system with working flock(2), share
// its values.
//
// Writes replace a value atomically: a value is durable when Put or
// Update returns, a crash mid-write leaves the previous value readable,
// and readers see either the old or the new value, never a mix. Put, and
// an Update of a new key or of a value that outgrew its file, write a
// temporary file, sync it, rename it over the value's and sync the
// directory; each write syncs its own file, in parallel with the others,
// and on Linux one directory sync serves every write renamed before it
// starts. Update of an existing key writes the new value into the half
// of its file that does not hold the current value, with a checksum, and
// syncs the file's data: no new file, no rename, no directory sync, about
// half the CPU time (a budget's counters are updated this way). On Linux
// the files of replaced and deleted values are also reused for later
// writes (creating a file costs a file system far more than rewriting
// one); Get and Keys take a shared flock(2) on the file they read, so
// that no file changes under a reader. Older versions of this package,
// which read files without that lock, refuse the files this version
// writes ([ErrCorrupt], not in the store's format): stop them before
// running this version on their directory.
//
// It is safe for concurrent use by goroutines and by processes sharing the
// directory: Put, Delete, Take and Update of a key hold the key's lock, an
// in-process mutex and an OS file lock (flock(2) on a lock file of the
// key's shard), so a read-modify-write such as Update or Take is atomic
// across processes: a pending SCA is taken once, and a budget kept with
// Update is never over-spent. Get and Keys take no key lock. Keys are
// spread over 64 shards; keys of different shards are written in
// parallel.
//
// A value's time to live is written in its file. An expired value is
// never returned; its file is removed when a method meets it, by a sweep
// that the writes of a FileStore run a slice at a time (every 64 writes
// of a new file, the next 256 entries of the directory, so that a write's
// share stays the same however many values the directory holds; a pass
// over the directory starts at most every 1024 such writes; an Update
// written in place adds no file and does not count), and when
// [FileStore.Sweep] is called. Keys reads the directory, and the header of
// each file under its prefix and of each file it never read: a file's
// name is its key's hash, so the store knows the key under a name once
// read (at most a million of them), and a listing of 10 sessions among
// 20,000 budget keys reads 10 files, not 20,010 (43 ms against 620 to
// 750 ms, BenchmarkFileStoreKeysPrefix).
//
// The store never follows a symbolic link: not for its directory, not for
// the files in it (O_NOFOLLOW). A file of the directory that is a symbolic
// link, not a regular file, or owned by another user is refused with an
// [*UnsafeStoreError].
//
// Platforms: the store needs flock(2), O_NOFOLLOW and POSIX permissions.
// On platforms without them (Windows, AIX, Solaris, js, wasip1)
// [NewFileStore] refuses with an error matching [errors.ErrUnsupported]
// rather than give a store whose cross-process guarantees do not hold.
type FileStore struct {
	dir string
	// uid is the user that must own the directory and its files.
	uid   int
	locks [lockShards]sync.Mutex
	// lockFiles are the shards' open lock files, each guarded by its
	// shard's mutex (see lock); nil until the shard's first lock.
	lockFiles [lockShards]*os.File
	writes    atomic.Int64
	sweep     sweeper
	// testSweepSlice, when above 0 (tests only), replaces
	// fileSweepSlice.
	testSweepSlice int
	// testSpareBatch, when above 0 (tests only), replaces spareBatch.
	testSpareBatch int
	// testUndoWait, when above 0 (tests only), replaces undoWait.
	testUndoWait time.Duration
	now          func() time.Time // nil: time.Now
	// crashHook, when set (tests only), runs after the new value was
	// written to the temporary file and before it is synced and renamed;
	// an error from it stands for a crash at that point.
	crashHook func(tmpName string) error
	// shareSyncs: writers share directory syncs (see file_durable.go);
	// otherwise each write syncs its file and the directory.
	shareSyncs bool
	dirSync    dirSyncer
	// reuse: the files of replaced and removed values are reused (see
	// file_spare.go).
	reuse  bool
	spares sparePool
	// inPlace: Update writes a value that fits in place (see
	// file_inplace.go); off in benchmarks only.
	inPlace bool
	// names knows the key of value files read before (see keyNames).
	names keyNames
	// opened counts the value files opened to be read (tests).
	opened atomic.Int64
}

// NewFileStore opens (creating it with mode 0700 if needed) the directory
// dir as a FileStore, removes temporary files older than an hour left by
// writers that crashed, and removes expired values.
//
// It refuses, with an [*UnsafeStoreError], a dir that is a symbolic link
// or not a directory, that is owned by another user than the process's
// (effective) user, or that group or others may access at all (mode bits
// 0077: sessions hold PSU ids; an attacker who can write into the
// directory could plant a pending SCA that completes into the attacker's
// PSU-ID). Only the last element of dir is checked: its parents should not
// be writable by others either (a sticky directory such as /tmp is fine).
func NewFileStore(dir string) (*FileStore, error) {
	return openFileStore(dir, os.Geteuid())
}

// openFileStore is NewFileStore for a directory that user uid must own.
func openFileStore(dir string, uid int) (*FileStore, error) {
	if dir == "" {
		return nil, errors.New("store: file store needs a directory")
	}
	if err := platformSupported(); err != nil {
		return nil, err
	}
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("store: creating file store directory: %w", err)
		}
	}
	if err := checkDir(dir, uid); err != nil {
		return nil, err
	}
	s := &FileStore{dir: dir, uid: uid, shareSyncs: defaultShareSyncs, reuse: defaultReuse, inPlace: true}
	_, _ = s.Sweep(context.Background())
	return s, nil
}

// checkDir applies the rules of [NewFileStore] to dir, which user uid
// must own: it looks at the directory entry itself (Lstat), then opens it
// without following a link and checks that the opened directory is the
// one looked at.
func checkDir(dir string, uid int) error {
	li, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("store: opening file store: %w", err)
	}
	if li.Mode()&fs.ModeSymlink != 0 {
		return &UnsafeStoreError{Path: dir, Reason: "is a symbolic link"}
	}
	if !li.IsDir() {
		return &UnsafeStoreError{Path: dir, Reason: "is not a directory"}
	}
	d, err := openNoFollow(dir, os.O_RDONLY, 0)
	if err != nil {
		return fmt.Errorf("store: opening file store: %w", err)
	}
	defer d.Close()
	fi, err := d.Stat()
	if err != nil {
		return fmt.Errorf("store: opening file store: %w", err)
	}
	if !os.SameFile(li, fi) || !fi.IsDir() {
		return &UnsafeStoreError{Path: dir, Reason: "was replaced while being opened"}
	}
	if !ownedBy(fi, uid) {
		return &UnsafeStoreError{Path: dir, Reason: "is owned by another user"}
	}
	if fi.Mode().Perm()&dirPermMask != 0 {
		return &UnsafeStoreError{Path: dir, Reason: fmt.Sprintf("is open to group or others (mode %#o, want 0700)", fi.Mode().Perm())}
	}
	return nil
}

// checkFile refuses an opened entry of the store that is not a regular
// file owned by the store's user.
func (s *FileStore) checkFile(f *os.File) error {
	_, err := s.statFile(f)
	return err
}

// statFile is checkFile returning the file's information.
func (s *FileStore) statFile(f *os.File) (fs.FileInfo, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("store: file store: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, &UnsafeStoreError{Path: f.Name(), Reason: "is not a regular file"}
	}
	if !ownedBy(fi, s.uid) {
		return nil, &UnsafeStoreError{Path: f.Name(), Reason: "is owned by another user"}
	}
	return fi, nil
}

// Dir returns the store's directory.
func (s *FileStore) Dir() string { return s.dir }

func (s *FileStore) clock() time.Time {
	if s.now != nil {
		return s.now()
	}
	return time.Now()
}

// name returns the file name of key and its lock shard.
func (s *FileStore) name(key string) (string, int) {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:]) + valueSuffix, int(sum[0]) % lockShards
}

// shardOfName returns the shard of a value file's name, and false for any
// other entry of the directory.
func shardOfName(name string) (int, bool) {
	if len(name) != 2*sha256.Size+len(valueSuffix) || !strings.HasSuffix(name, valueSuffix) {
		return 0, false
	}
	b, err := hex.DecodeString(name[:2*sha256.Size])
	if err != nil {
		return 0, false
	}
	return int(b[0]) % lockShards, true
}

// lockName is the name of the lock file of shard.
func lockName(shard int) string { return fmt.Sprintf("%s%02x", lockPrefix, shard) }

// lock takes the lock of shard: the in-process mutex, then the OS file
// lock shared with other processes. It returns the function that releases
// both.
//
// The shard's lock file is opened (and vetted) by the first lock of the
// shard and kept open by the FileStore: opening, checking and closing it
// on every write cost as much CPU time as the write's own data sync. The
// in-process mutex is held whenever the file is, so one open file per
// shard serves every goroutine; the store never removes or renames a
// lock file, so the open file stays the one other processes lock.
func (s *FileStore) lock(ctx context.Context, shard int) (func(), error) {
	mu := &s.locks[shard]
	mu.Lock()
	f := s.lockFiles[shard]
	if f == nil {
		var err error
		if f, err = openLockFile(filepath.Join(s.dir, lockName(shard)), s.checkFile); err != nil {
			mu.Unlock()
			return nil, err
		}
		s.lockFiles[shard] = f
	}
	if err := lockOpenFile(ctx, f); err != nil {
		mu.Unlock()
		return nil, err
	}
	return func() {
		_ = unlockFile(f)
		mu.Unlock()
	}, nil
}

// fileHeader is the header of a value file.
type fileHeader struct {
	expires time.Time // zero: never
	key     string
	// slotSize is the slot size of a version 3 file, 0 for an older one;
	// slot and seq are the current value's slot and sequence number.
	slotSize int
	slot     int
	seq      uint64
}

func (h fileHeader) expired(now time.Time) bool {
	return !h.expires.IsZero() && !now.Before(h.expires)
}

// maxExpires is the latest expiry a file holds: the last instant whose
// Unix nanoseconds fit an int64. A later one is written as it.
var maxExpires = time.Unix(0, math.MaxInt64)

// encodeContent returns a slot's content for key.
func encodeContent(key string, value []byte, expires time.Time) []byte {
	b := make([]byte, 0, contentHeaderLen+len(key)+len(value))
	var exp int64
	switch {
	case expires.IsZero():
	case expires.After(maxExpires):
		// UnixNano is undefined past 2262 (a ttl of some 240 years or
		// more): it wrapped, and the value expired at once.
		exp = math.MaxInt64
	default:
		exp = expires.UnixNano()
	}
	b = binary.BigEndian.AppendUint64(b, uint64(exp))
	b = binary.BigEndian.AppendUint32(b, uint32(len(key)))
	b = append(b, key...)
	return append(b, value...)
}

// slotSizeFor returns the slot size of a new file for a content of n
// bytes: room for half as much again, so that a value that grows a
// little (a budget's next call) is still written in place.
func slotSizeFor(n int) int {
	need := slotHeaderLen + n
	return (need + need/2 + minSlot - 1) / minSlot * minSlot
}

// encodeFile returns the content of a new value file of key: the value
// in the first slot, with sequence number 1, and an empty second slot.
func encodeFile(key string, value []byte, expires time.Time) []byte {
	content := encodeContent(key, value, expires)
	size := slotSizeFor(len(content))
	b := make([]byte, slotsAt+2*size)
	copy(b, fileMagic)
	binary.BigEndian.PutUint32(b[len(fileMagic):], uint32(size))
	putSlot(b[slotsAt:], 1, content)
	return b
}

// castagnoli is the CRC-32C table of the slots.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// putSlot writes a slot holding content with sequence number seq at the
// start of b, which must have room for it.
func putSlot(b []byte, seq uint64, content []byte) {
	binary.BigEndian.PutUint64(b, seq)
	binary.BigEndian.PutUint32(b[8:], uint32(len(content)))
	crc := crc32.Update(0, castagnoli, b[:12])
	crc = crc32.Update(crc, castagnoli, content)
	binary.BigEndian.PutUint32(b[12:], crc)
	copy(b[slotHeaderLen:], content)
}

// readSlot returns the sequence number and the content of the slot b,
// and false for a slot that is empty or not whole (a write cut short by a
// crash).
func readSlot(b []byte) (uint64, []byte, bool) {
	seq := binary.BigEndian.Uint64(b)
	n := binary.BigEndian.Uint32(b[8:])
	if seq == 0 || int64(n) > int64(len(b)-slotHeaderLen) {
		return 0, nil, false
	}
	crc := crc32.Update(0, castagnoli, b[:12])
	content := b[slotHeaderLen : slotHeaderLen+int(n)]
	if crc32.Update(crc, castagnoli, content) != binary.BigEndian.Uint32(b[12:]) {
		return 0, nil, false
	}
	return seq, content, true
}

// decodeFile reads the content of a value file, b, and returns its header
// and value.
func decodeFile(b []byte) (fileHeader, []byte, error) {
	if len(b) >= len(fileMagic) && string(b[:len(fileMagic)]) == fileMagic {
		return decodeSlots(b)
	}
	h, n, err := decodeHeader(b)
	if err != nil {
		return fileHeader{}, nil, err
	}
	return h, b[n:], nil
}

// decodeSlots reads a version 3 file: the value of its current slot.
func decodeSlots(b []byte) (fileHeader, []byte, error) {
	if len(b) < slotsAt {
		return fileHeader{}, nil, fmt.Errorf("%w: header cut short", ErrCorrupt)
	}
	size := int64(binary.BigEndian.Uint32(b[len(fileMagic):]))
	if size < minSlot || size%minSlot != 0 || size > maxSlot {
		return fileHeader{}, nil, fmt.Errorf("%w: slot size %d", ErrCorrupt, size)
	}
	if int64(len(b)) < int64(slotsAt)+2*size {
		return fileHeader{}, nil, fmt.Errorf("%w: slots cut short", ErrCorrupt)
	}
	h := fileHeader{slotSize: int(size), slot: -1}
	var content []byte
	for i := range 2 {
		at := slotsAt + i*int(size)
		seq, c, ok := readSlot(b[at : at+int(size)])
		if ok && (h.slot < 0 || seq > h.seq) {
			h.slot, h.seq, content = i, seq, c
		}
	}
	if h.slot < 0 {
		return fileHeader{}, nil, fmt.Errorf("%w: no whole slot", ErrCorrupt)
	}
	if len(content) < contentHeaderLen {
		return fileHeader{}, nil, fmt.Errorf("%w: slot content cut short", ErrCorrupt)
	}
	exp := int64(binary.BigEndian.Uint64(content))
	n := binary.BigEndian.Uint32(content[8:])
	if n == 0 || n > MaxKeyLen || int(n) > len(content)-contentHeaderLen {
		return fileHeader{}, nil, fmt.Errorf("%w: key length %d", ErrCorrupt, n)
	}
	h.key = string(content[contentHeaderLen : contentHeaderLen+int(n)])
	if exp != 0 {
		h.expires = time.Unix(0, exp)
	}
	return h, content[contentHeaderLen+int(n):], nil
}

// notOurFormat is the error of a value file whose first bytes, magic,
// are no format this package reads. A later format of this package
// ("psd2store" and a higher number) is named as such: a newer release of
// the SDK wrote it, and this one must not run on its directory.
func notOurFormat(magic string) error {
	const prefix = "psd2store"
	if v, ok := strings.CutPrefix(strings.TrimSuffix(magic, "\n"), prefix); ok && len(v) == 1 && v[0] > fileMagic[len(prefix)] && v[0] <= '9' {
		return fmt.Errorf("%w: written in format %s by a newer release of this package, which this one does not read", ErrCorrupt, v)
	}
	return fmt.Errorf("%w: not in the store's format", ErrCorrupt)
}

// decodeHeader reads the header at the start of b, the content (or the
// first bytes) of a version 1 or 2 value file, and returns it with the
// header's length.
func decodeHeader(b []byte) (fileHeader, int, error) {
	if len(b) < headerLen {
		return fileHeader{}, 0, fmt.Errorf("%w: header cut short", ErrCorrupt)
	}
	if m := string(b[:len(fileMagic)]); m != fileMagicV2 && m != fileMagicV1 {
		return fileHeader{}, 0, notOurFormat(m)
	}
	exp := int64(binary.BigEndian.Uint64(b[len(fileMagic):]))
	n := binary.BigEndian.Uint32(b[len(fileMagic)+8:])
	if n == 0 || n > MaxKeyLen {
		return fileHeader{}, 0, fmt.Errorf("%w: key length %d", ErrCorrupt, n)
	}
	end := headerLen + int(n)
	if len(b) < end {
		return fileHeader{}, 0, fmt.Errorf("%w: key cut short", ErrCorrupt)
	}
	h := fileHeader{key: string(b[headerLen:end])}
	if exp != 0 {
		h.expires = time.Unix(0, exp)
	}
	return h, end, nil
}

// Get implements [Store]. It takes no key lock (see readEntry); an
// expired value it meets is removed under the key's lock.
func (s *FileStore) Get(ctx context.Context, key string) ([]byte, error) {
	if err := begin(ctx, key); err != nil {
		return nil, err
	}
	name, shard := s.name(key)
	b, h, err := s.readEntry(ctx, name, shard, key, true)
	if err != nil {
		return nil, err
	}
	if h.expired(s.clock()) {
		_, _ = s.removeIfExpired(ctx, name, shard)
		return nil, ErrNotStored
	}
	return b, nil
}

// Put implements [Store]: it replaces the value under key atomically.
func (s *FileStore) Put(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	if err := begin(ctx, key); err != nil {
		return err
	}
	if err := CheckValue(value); err != nil {
		return err
	}
	name, shard := s.name(key)
	unlock, err := s.lock(ctx, shard)
	if err != nil {
		return err
	}
	err = s.writeAtomic(name, encodeFile(key, value, expiry(s.clock(), ttl)))
	unlock()
	if err == nil {
		s.afterWrite(ctx)
	}
	return err
}

// Update implements [Store]: fn runs once, with the key's lock held (in
// this process and in every other process using the directory), so it
// must be quick and must not use the store. A value and expiry equal to
// the stored ones are not written again.
func (s *FileStore) Update(ctx context.Context, key string, fn func(old []byte, found bool) ([]byte, time.Duration, error)) error {
	if err := begin(ctx, key); err != nil {
		return err
	}
	name, shard := s.name(key)
	unlock, err := s.lock(ctx, shard)
	if err != nil {
		return err
	}
	// The lock is released even when fn panics (a caller that recovers,
	// as net/http does, would otherwise leave the shard locked for good).
	newFile, err := func() (bool, error) {
		defer unlock()
		return s.update(ctx, name, key, fn)
	}()
	// The sweep takes shard locks: it runs once this one is released.
	if newFile {
		s.afterWrite(ctx)
	}
	return err
}

// update is Update with the key's lock held; it reports whether it wrote
// a new file (which counts towards the sweep: a value written in place
// adds nothing to the directory). A new value that fits the slot of the
// key's version 3 file is written in place (see writeInPlace).
func (s *FileStore) update(ctx context.Context, name, key string, fn func(old []byte, found bool) ([]byte, time.Duration, error)) (bool, error) {
	now := s.clock()
	path := filepath.Join(s.dir, name)
	// The file is opened once, to be read and, when the new value fits,
	// written in place.
	flag := os.O_RDONLY
	if s.inPlace {
		flag = os.O_RDWR
	}
	f, fi, err := s.openValue(path, flag)
	exists := err == nil
	var old []byte
	var h fileHeader
	if exists {
		defer f.Close()
		old, h, err = s.readFile(f, fi, path, key, true, true)
	}
	if errors.Is(err, ErrNotStored) {
		err = nil
	}
	if err != nil {
		return false, err
	}
	found := exists && !h.expired(now)
	if !found {
		old = nil
	}
	value, ttl, err := fn(old, found)
	switch {
	case err != nil:
		return false, err
	case value == nil:
		return false, s.remove(name)
	case ttl <= 0 && found && bytes.Equal(old, value) && h.expires.IsZero():
		return false, nil
	}
	if err := CheckValue(value); err != nil {
		return false, err
	}
	exp := expiry(now, ttl)
	if exists && h.slotSize > 0 && s.inPlace {
		content := encodeContent(key, value, exp)
		if slotHeaderLen+len(content) <= h.slotSize {
			return false, s.writeInPlace(ctx, f, path, h, content)
		}
	}
	if err := s.writeAtomic(name, encodeFile(key, value, exp)); err != nil {
		return false, err
	}
	return true, nil
}

// Delete implements [Store].
func (s *FileStore) Delete(ctx context.Context, key string) error {
	if err := begin(ctx, key); err != nil {
		return err
	}
	name, shard := s.name(key)
	unlock, err := s.lock(ctx, shard)
	if err != nil {
		return err
	}
	defer unlock()
	return s.remove(name)
}

// Take implements [Store]. It is atomic across processes: it holds the
// key's lock, and it renames the file to a unique name, which only one
// caller can do.
func (s *FileStore) Take(ctx context.Context, key string) ([]byte, error) {
	if err := begin(ctx, key); err != nil {
		return nil, err
	}
	name, shard := s.name(key)
	unlock, err := s.lock(ctx, shard)
	if err != nil {
		return nil, err
	}
	defer unlock()
	path := filepath.Join(s.dir, name)
	// The value is read before it is moved, under the key's lock, so the
	// file cannot change in between. A link or a foreign file is refused
	// where it is, and the value is not lost should the moved file's name
	// be removed before it is read (by a sweep in another process, for
	// which the name of an old value's file looks like a stale one's).
	b, h, err := s.readOnce(path, key, true, true)
	if err != nil {
		return nil, err
	}
	var rnd [8]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, fmt.Errorf("store: file store take: %w", err)
	}
	taken := filepath.Join(s.dir, takePrefix+name+"-"+hex.EncodeToString(rnd[:]))
	// The rename is the take: of two callers only one moves the file,
	// even on a file system whose locks do not work.
	err = os.Rename(path, taken)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotStored
	}
	if err != nil {
		return nil, fmt.Errorf("store: file store take: %w", err)
	}
	if !s.reuse {
		_ = os.Remove(taken)
	}
	if err := s.dirChanged(); err != nil {
		_ = os.Remove(taken)
		return nil, err
	}
	if s.reuse {
		s.adopt(taken)
	}
	if h.expired(s.clock()) {
		return nil, ErrNotStored
	}
	return b, nil
}

// Keys implements [Store]. It reads the directory and the header of every
// value file under prefix (or never read by this store) when the
// iteration starts; a file it cannot read ends the sequence with its
// error.
func (s *FileStore) Keys(ctx context.Context, prefix string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		if err := ctx.Err(); err != nil {
			yield("", err)
			return
		}
		entries, err := os.ReadDir(s.dir)
		if err != nil {
			yield("", fmt.Errorf("store: file store keys: %w", err))
			return
		}
		now := s.clock()
		type valueFile struct {
			name  string
			shard int
		}
		var files []valueFile
		var sums [][sha256.Size]byte
		for _, e := range entries {
			shard, ok := shardOfName(e.Name())
			if !ok {
				continue
			}
			sum, _ := nameSum(e.Name())
			files = append(files, valueFile{e.Name(), shard})
			sums = append(sums, sum)
		}
		known := s.names.listed(sums)
		var keys []string
		for i, f := range files {
			if err := ctx.Err(); err != nil {
				yield("", err)
				return
			}
			if known[i] != "" && !strings.HasPrefix(known[i], prefix) {
				continue // another prefix's: only its expiry is unknown
			}
			_, h, err := s.readEntry(ctx, f.name, f.shard, "", false)
			if errors.Is(err, ErrNotStored) {
				continue // deleted meanwhile
			}
			if err != nil {
				yield("", err)
				return
			}
			s.names.learn(f.name, h.key)
			if strings.HasPrefix(h.key, prefix) && !h.expired(now) {
				keys = append(keys, h.key)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			if !yield(k, nil) {
				return
			}
		}
	}
}

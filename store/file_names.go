package store

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"
)

// maxKnownNames bounds the value files whose key a FileStore keeps in
// memory (keyNames): about 75 bytes and the key's length each (measured:
// 121 bytes for a key of 40 bytes, 1,097 for one of MaxKeyLen), so about
// 120 MiB for a store of a million keys of 40 bytes, and at most about
// 1.1 GiB for one of a million keys of MaxKeyLen; past it the files of
// new keys are read by each Keys call, as before the cache. Names of
// files gone from the directory are forgotten at the next listing
// (keyNames.listed), so the cache never holds more keys than the
// directory.
const maxKnownNames = 1 << 20

// keyNames knows the key of each value file read before. A value file's
// name is the SHA-256 of its key, so the key under a name never changes:
// whatever another process writes or removes, a file of that name holds
// that key or is gone. [FileStore.Keys] then reads only the files of keys
// under its prefix (for their expiry) and those it never read, rather
// than every file of the store: listing a few sessions among 100,000
// budget keys read 100,000 files on every call. A key is learned only
// when its hash is the name (a file whose header names another key,
// damaged or placed by hand, is read every time, as before).
type keyNames struct {
	mu sync.Mutex
	m  map[[sha256.Size]byte]string
	// limit, when above 0 (tests only), replaces maxKnownNames.
	limit int
}

// listed returns the key of each value file of a listing of the
// directory, by the hashes in their names (sums), "" for a file whose key
// is not known, and forgets the names of files not listed: keys come and
// go (a session per login), and the names of keys deleted, taken or
// expired would otherwise fill the cache for good, after which it would
// learn no new name. A name learned by a concurrent listing of a file
// written after this one is forgotten too; the next listing reads its
// file again.
func (k *keyNames) listed(sums [][sha256.Size]byte) []string {
	keys := make([]string, len(sums))
	k.mu.Lock()
	defer k.mu.Unlock()
	hits := 0
	for i, sum := range sums {
		if key, ok := k.m[sum]; ok {
			keys[i] = key
			hits++
		}
	}
	if hits < len(k.m) {
		names := make(map[[sha256.Size]byte]struct{}, len(sums))
		for _, sum := range sums {
			names[sum] = struct{}{}
		}
		for sum := range k.m {
			if _, ok := names[sum]; !ok {
				delete(k.m, sum)
			}
		}
	}
	return keys
}

// learn records that the value file name holds key, when key's hash is
// name and the bound leaves room.
func (k *keyNames) learn(name, key string) {
	sum, ok := nameSum(name)
	if !ok || sha256.Sum256([]byte(key)) != sum {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.m == nil {
		k.m = make(map[[sha256.Size]byte]string)
	}
	limit := maxKnownNames
	if k.limit > 0 {
		limit = k.limit
	}
	if _, known := k.m[sum]; !known && len(k.m) < limit {
		k.m[sum] = key
	}
}

// nameSum decodes the hash in a value file's name.
func nameSum(name string) (sum [sha256.Size]byte, ok bool) {
	if len(name) < 2*sha256.Size {
		return sum, false
	}
	_, err := hex.Decode(sum[:], []byte(name[:2*sha256.Size]))
	return sum, err == nil
}

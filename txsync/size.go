package txsync

import "reflect"

// heldBytes estimates the bytes v, an entry of a read (an
// *accounts.Transaction or *accounts.CardTransaction), holds in memory:
// its own size and the bytes of every string, slice and pointed-to value
// it reaches (its texts, its Extra members, its amounts' digits), so that
// a read is bounded in bytes ([MaxReadBytes]), whatever the bank sends,
// and not in entries alone.
func heldBytes(v any) int {
	return walkBytes(reflect.ValueOf(v), 0)
}

// maxWalkDepth bounds the pointers, slices and structs walkBytes follows
// into: an entry's types nest a few levels; a value deeper (or a cycle
// through an error's chain) is not counted further.
const maxWalkDepth = 32

// walkBytes is heldBytes of v at depth: the bytes v references, besides
// its own (inline) size, which its holder counts.
func walkBytes(v reflect.Value, depth int) int {
	if depth > maxWalkDepth {
		return 0
	}
	depth++
	switch v.Kind() {
	case reflect.String:
		return v.Len()
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return 0
		}
		e := v.Elem()
		return int(e.Type().Size()) + walkBytes(e, depth)
	case reflect.Slice:
		if v.IsNil() {
			return 0
		}
		n := v.Cap() * int(v.Type().Elem().Size())
		if holdsRefs(v.Type().Elem()) {
			for i := range v.Len() {
				n += walkBytes(v.Index(i), depth)
			}
		}
		return n
	case reflect.Array:
		n := 0
		if holdsRefs(v.Type().Elem()) {
			for i := range v.Len() {
				n += walkBytes(v.Index(i), depth)
			}
		}
		return n
	case reflect.Struct:
		n := 0
		for i := range v.NumField() {
			n += walkBytes(v.Field(i), depth)
		}
		return n
	case reflect.Map:
		n := v.Len() * int(v.Type().Key().Size()+v.Type().Elem().Size())
		for it := v.MapRange(); it.Next(); {
			n += walkBytes(it.Key(), depth) + walkBytes(it.Value(), depth)
		}
		return n
	}
	return 0
}

// holdsRefs reports whether a value of type t may reference memory
// outside itself.
func holdsRefs(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return false
	case reflect.Array:
		return holdsRefs(t.Elem())
	}
	return true
}

package reconcile

// Reencode decodes an account's stored state and encodes it afresh,
// every payment from its fields (none copied from its earlier encoding).
func Reencode(b []byte) ([]byte, error) {
	s, err := decodeState(b)
	if err != nil {
		return nil, err
	}
	for i := range s.pays {
		s.pays[i].enc = nil
	}
	return encodeState(s), nil
}

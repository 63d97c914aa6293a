package main

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/examples/internal/demo"
)

func TestRun(t *testing.T) {
	text := demo.Run(t, run)
	assert.Contains(t, text, "31 rounds")
	assert.Regexp(t, `txsync +duplicates +0  missed +0  false changes +0`, text)
	m := regexp.MustCompile(`new-booked cursor +duplicates +(\d+)`).FindStringSubmatch(text)
	require.Len(t, m, 2)
	assert.NotEqual(t, "0", m[1], "today's cursor reports duplicates")
	assert.Regexp(t, `account 1 changed booked .*Rema d\d+ \(booked\+amount`, text)
	assert.Contains(t, text, "(pending vanished)")
	assert.Contains(t, text, "linked account 1: new=false")
}

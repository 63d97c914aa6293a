package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tppkit/psd2/examples/internal/demo"
)

func TestRun(t *testing.T) {
	text := demo.Run(t, run)
	assert.Contains(t, text, "220 payments over 42 rounds")
	assert.Regexp(t, `matched correctly +220 of 220`, text)
	assert.Regexp(t, `false matches +0\n`, text)
	assert.Regexp(t, `stalled flagged +20 of 20 expected, 20 at the first read after the window; false stalls 0`, text)
	assert.Regexp(t, `unmatched reported +20 of 20`, text)
	assert.Regexp(t, `#12 49\.00 NOK by remittance, #12b 49\.00 NOK by remittance`, text, "twins")
	assert.Regexp(t, `#13 249\.00 NOK \(late\)`, text)
	assert.Regexp(t, `\(of \d+\.00 EUR\) by end-to-end-id`, text)
	assert.Contains(t, text, "new consent (the account keeps its key)")
	assert.Regexp(t, `events +205 settled, 20 stalled, 10 returned`, text)
}

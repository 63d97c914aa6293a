package txsync_test

import (
	"sync"
	"time"

	"github.com/tppkit/psd2/date"
)

// frozen is a settable clock for the sync under test.
type frozen struct {
	mu  sync.Mutex
	now time.Time
}

func (c *frozen) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *frozen) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// bankToday is the bank's date at the clock's time (Europe/Oslo).
func (c *frozen) bankToday() date.Date { return date.Of(c.Now().In(date.Oslo())) }

func plusDays(d date.Date, n int) date.Date { return date.Of(d.Time(time.UTC).AddDate(0, 0, n)) }

package oci

import (
	"container/list"
	"sync"
)

// cacheSize is the number of resolutions kept and cacheBytes the bytes
// they may hold together (docs/config-generation.md, Resolution cache): a
// fleet uses a handful of images, and without the byte bound 64 bases of
// up to MaxBaseConfig each could pin 64 MiB.
const (
	cacheSize  = 64
	cacheBytes = 8 << 20
)

// entry is one cached resolution. Only successes are cached; the
// workqueue's rate limiter provides the backoff for failures.
type entry struct {
	config   []byte
	fileName string
	digest   string
	warnings []string
}

// bytes is what e holds, as counted against cacheBytes.
func (e *entry) bytes() int {
	n := len(e.config) + len(e.fileName) + len(e.digest)
	for _, w := range e.warnings {
		n += len(w)
	}
	return n
}

// lru is a least-recently-used map bounded in entries and in bytes, safe
// for concurrent use.
type lru struct {
	mu       sync.Mutex
	order    *list.List // front = most recent; values are *lruItem
	items    map[string]*list.Element
	size     int
	maxBytes int
	used     int
}

type lruItem struct {
	key string
	val entry
}

func newLRU(size, maxBytes int) *lru {
	return &lru{order: list.New(), items: map[string]*list.Element{}, size: size, maxBytes: maxBytes}
}

func (c *lru) get(key string) (entry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		return entry{}, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*lruItem).val, true
}

// add keeps val under key, evicting the least recently used entries until
// both bounds hold; a val larger than the byte bound alone is not kept.
func (c *lru) add(key string, val entry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.remove(el)
	}
	if val.bytes() > c.maxBytes {
		return
	}
	c.items[key] = c.order.PushFront(&lruItem{key: key, val: val})
	c.used += val.bytes()
	for c.order.Len() > c.size || c.used > c.maxBytes {
		c.remove(c.order.Back())
	}
}

func (c *lru) remove(el *list.Element) {
	it := el.Value.(*lruItem)
	c.order.Remove(el)
	delete(c.items, it.key)
	c.used -= it.val.bytes()
}

func (c *lru) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

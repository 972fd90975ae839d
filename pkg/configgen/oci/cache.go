package oci

import (
	"container/list"
	"sync"
)

// cacheSize is the number of resolutions kept (docs/config-generation.md,
// Resolution cache).
const cacheSize = 64

// entry is one cached resolution. Only successes are cached; the
// workqueue's rate limiter provides the backoff for failures.
type entry struct {
	config   []byte
	fileName string
	digest   string
	warnings []string
}

// lru is a fixed-size least-recently-used map, safe for concurrent use.
type lru struct {
	mu    sync.Mutex
	order *list.List // front = most recent; values are *lruItem
	items map[string]*list.Element
	size  int
}

type lruItem struct {
	key string
	val entry
}

func newLRU(size int) *lru {
	return &lru{order: list.New(), items: map[string]*list.Element{}, size: size}
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

func (c *lru) add(key string, val entry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		el.Value.(*lruItem).val = val
		c.order.MoveToFront(el)
		return
	}
	c.items[key] = c.order.PushFront(&lruItem{key: key, val: val})
	for c.order.Len() > c.size {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(*lruItem).key)
	}
}

func (c *lru) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

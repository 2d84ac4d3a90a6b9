// Package docs holds the test that keeps the documentation's links whole:
// every relative link in README.md and docs/*.md names a file that exists,
// and every #anchor names a heading of the page it points to. It has no
// code of its own and must not grow any: it reads the pages as text.
package docs

// Package fifotest makes named pipes for tests of what readers and
// commands do when one stands where a file is expected (an open that waits
// for a writer, a read that never ends).
package fifotest

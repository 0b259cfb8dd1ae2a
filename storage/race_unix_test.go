//go:build unix

package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// hook sets a test hook until the test ends.
func hook(t *testing.T, h *func(string), f func(string)) {
	t.Helper()
	*h = f
	t.Cleanup(func() { *h = nil })
}

// A writer that commits while RemoveLeftover looks at its temporary takes
// the name away under it: RemoveLeftover has removed nothing, and a name
// already gone is no error.
func TestRemoveLeftoverRacesCommit(t *testing.T) {
	name := filepath.Join(t.TempDir(), "out")
	p, err := CreatePending(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(p, "data")
	hook(t, &testHookLeftoverOpened, func(string) {
		if err := p.Commit(); err != nil {
			t.Errorf("Commit: %v", err)
		}
	})
	if removed, err := RemoveLeftover(t.Context(), p.TempName()); removed || err != nil {
		t.Errorf("RemoveLeftover of a temporary committed meanwhile = %v, %v; want false, nil", removed, err)
	}
	if b, err := os.ReadFile(name); string(b) != "data" {
		t.Errorf("the committed file reads %q, %v; want data", b, err)
	}
}

// A RemoveLeftover between the creation of a temporary and its lock sees
// an unlocked temporary, a dead writer's, and removes it: the writer
// takes another name and goes on.
func TestCreatePendingRacesRemoveLeftover(t *testing.T) {
	name := filepath.Join(t.TempDir(), "out")
	var removed []string
	hook(t, &testHookCreated, func(temp string) {
		if len(removed) == 2 {
			return
		}
		ok, err := RemoveLeftover(t.Context(), temp)
		if !ok || err != nil {
			t.Errorf("RemoveLeftover of an unlocked temporary = %v, %v; want true, nil", ok, err)
		}
		removed = append(removed, temp)
	})
	p, err := CreatePending(t.Context(), name)
	if err != nil {
		t.Fatalf("CreatePending after its temporaries were removed: %v", err)
	}
	if len(removed) != 2 || slices.Contains(removed, p.TempName()) {
		t.Errorf("removed %q, and the writer's temporary is %s", removed, p.TempName())
	}
	io.WriteString(p, "data")
	if err := p.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(name); string(b) != "data" {
		t.Errorf("the committed file reads %q, %v; want data", b, err)
	}
	if left, _ := Leftovers(t.Context(), name); len(left) != 0 {
		t.Errorf("leftovers %q", left)
	}
}

// Writers that create, write and commit beside a remover of leftovers,
// as a convert beside another convert to the same output: every writer
// commits, and the remover removes none of theirs and meets no error.
func TestPendingBesideRemover(t *testing.T) {
	name := filepath.Join(t.TempDir(), "out")
	stop := make(chan struct{})
	var removerErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			left, _ := Leftovers(t.Context(), name)
			for _, l := range left {
				if _, err := RemoveLeftover(t.Context(), l); err != nil && removerErr == nil {
					removerErr = err
				}
			}
		}
	}()
	defer func() {
		close(stop)
		<-done
		if removerErr != nil {
			t.Errorf("RemoveLeftover: %v", removerErr)
		}
	}()
	for i := range 300 {
		p, err := CreatePending(t.Context(), name)
		if err != nil {
			t.Fatalf("CreatePending %d: %v", i, err)
		}
		io.WriteString(p, "data")
		if err := p.Commit(); err != nil {
			t.Fatalf("Commit %d: %v", i, err)
		}
	}
}

// A writer whose fresh temporary someone else holds locked (a remover or
// a verify looking at it) waits for the lock, and gives up when its
// context ends, leaving nothing: a blocking flock could not be ended.
func TestCreatePendingWaitsForTheLock(t *testing.T) {
	for _, release := range []bool{true, false} {
		t.Run(fmt.Sprintf("released=%v", release), func(t *testing.T) {
			name := filepath.Join(t.TempDir(), "out")
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var other *os.File
			hook(t, &testHookCreated, func(temp string) {
				f, err := os.Open(temp)
				if err != nil {
					t.Fatal(err)
				}
				if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
					t.Fatal(err)
				}
				other = f
				time.AfterFunc(20*time.Millisecond, func() {
					if release {
						f.Close()
					} else {
						cancel()
					}
				})
			})
			p, err := CreatePending(ctx, name)
			if !release {
				defer other.Close()
				if !errors.Is(err, context.Canceled) || p != nil {
					t.Fatalf("CreatePending while another holds its temporary, cancelled = %v, %v; want context.Canceled", p, err)
				}
				if left, _ := Leftovers(t.Context(), name); len(left) != 0 {
					t.Errorf("a cancelled create left %q", left)
				}
				return
			}
			if err != nil {
				t.Fatalf("CreatePending after the other let go of its temporary: %v", err)
			}
			defer p.Abort()
			if held, err := tryLockOther(p.TempName()); err != nil || !held {
				t.Errorf("the writer's temporary is not locked: held %v, %v", held, err)
			}
		})
	}
}

// tryLockOther reports whether someone holds the lock of the file name,
// through a descriptor of its own.
func tryLockOther(name string) (bool, error) {
	f, err := os.Open(name)
	if err != nil {
		return false, err
	}
	defer f.Close()
	return tryLock(f)
}

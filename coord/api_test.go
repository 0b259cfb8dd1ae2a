package coord_test

import (
	"testing"

	"github.com/sluiceml/sluice/internal/apicheck"
)

// Every call that blocks takes a context.
func TestAPI(t *testing.T) {
	apicheck.Run(t, []string{"context", "time", "github.com/sluiceml/sluice/coord"},
		"ctx context.Context, c *coord.Coordinator", []struct{ Code, Want string }{
			{`_ = c.Join(ctx, time.Second); _ = c.WaitForStop(ctx)`, ""},
			{`_ = c.Join(time.Second)`, "not enough arguments in call to c.Join"},
			{`_ = c.JoinContext(ctx, time.Second)`, "c.JoinContext undefined"},
			{`_ = c.WaitForStop(time.Second)`, "cannot use time.Second"},
		})
}

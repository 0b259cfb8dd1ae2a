package blobfs

import (
	"maps"
	"testing"
)

// EnvParams takes each default scheme's bucket parameters from
// SLUICE_<SCHEME>_PARAMS; a BucketParams after it wins for its scheme.
func TestEnvParams(t *testing.T) {
	t.Setenv("SLUICE_S3_PARAMS", "endpoint=http://127.0.0.1:9000&use_path_style=true")
	t.Setenv("SLUICE_GS_PARAMS", "")
	t.Setenv("SLUICE_AZBLOB_PARAMS", "domain=example.net")
	t.Setenv("SLUICE_OTHER_PARAMS", "ignored=1")
	for _, tc := range []struct {
		name string
		opts []Option
		want map[string]string
	}{
		{"environment", []Option{EnvParams()}, map[string]string{
			"s3": "endpoint=http://127.0.0.1:9000&use_path_style=true", "azblob": "domain=example.net"}},
		{"BucketParams after it", []Option{EnvParams(), BucketParams("s3", "region=eu-west-1")}, map[string]string{
			"s3": "region=eu-west-1", "azblob": "domain=example.net"}},
		{"none", nil, map[string]string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := newConfig(tc.opts).params
			if got == nil {
				got = map[string]string{}
			}
			if !maps.Equal(got, tc.want) {
				t.Errorf("params %v, want %v", got, tc.want)
			}
		})
	}
}

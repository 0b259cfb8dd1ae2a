package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tfrecord"
)

// Mistakes a user makes on the command line are refused in sluice's words,
// saying what to do, rather than by whatever deep in a pipeline or a
// reader first trips over them.
func TestActionableErrors(t *testing.T) {
	dir := t.TempDir()
	good := writeExamples(t, dir, "good.tfrecord", 2, tfrecord.None)
	gz := writeExamples(t, dir, "packed.tfrecord.gz", 2, tfrecord.Gzip)
	sub := filepath.Join(dir, "shards")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"verify", sub}, sub + ": is a directory; name the files in it"},
		{[]string{"count", sub}, sub + ": is a directory"},
		{[]string{"cat", sub}, sub + ": is a directory"},
		{[]string{"verify", filepath.Join(dir, "*")}, sub + ": is a directory"},
		{[]string{"bench", good, "--readers", "0"}, "--readers must be at least 1, not 0"},
		{[]string{"bench", good, "--batch", "-3"}, "--batch must be at least 1, not -3"},
		{[]string{"bench", good, "--epochs", "0"}, "--epochs must be at least 1, not 0"},
		{[]string{"demo", "--readers", "0"}, "--readers must be at least 1, not 0"},
		{[]string{"demo", "--batch", "0"}, "--batch must be at least 1, not 0"},
		{[]string{"demo", "--shards", "0"}, "--shards must be at least 1, not 0"},
		// Numbers beyond any use size nothing (audit 114: bench --batch
		// 2147483647 asked for 16 GiB and ended the process).
		{[]string{"bench", good, "--batch", "2147483647"}, "--batch must be at most 1048576, not 2147483647"},
		{[]string{"bench", good, "--readers", "100000"}, "--readers must be at most 1024, not 100000"},
		{[]string{"demo", "--shards", "2147483647"}, "--shards must be at most 10000, not 2147483647"},
		{[]string{"demo", "--batch", "2147483647"}, "--batch must be at most 1048576, not 2147483647"},
		{[]string{"demo", "--readers", "100000"}, "--readers must be at most 1024, not 100000"},
		{[]string{"demo", "sequence", "--shards", "2147483647"}, "--shards must be at most 10000"},
		{[]string{"demo", "sequence", "--readers", "2147483647"}, "--readers must be at most 1024, not 2147483647"},
		{[]string{"demo", "sequence", "--series", "2147483647"}, "--series must be at most 1000000, not 2147483647"},
		{[]string{"demo", "sequence", "--max-len", "2147483647"}, "--max-len must be at most 1000000, not 2147483647"},
		{[]string{"demo", "--train", "9223372036854775807"}, "--train must be at most 10000000, not 9223372036854775807"},
		{[]string{"demo", "--test", "2147483647"}, "--test must be at most 10000000, not 2147483647"},
		{[]string{"demo", "--hidden", "-1"}, "--hidden must be at least 0, not -1"},
		{[]string{"demo", "--checkpoint-dir", dir, "--checkpoint-every", "0"}, "--checkpoint-every must be at least 1, not 0"},
		{[]string{"count", good, "--parallel", "-1"}, "--parallel must be at least 1, not -1"},
		{[]string{"count", good, "--parallel", "0"}, "--parallel must be at least 1, not 0"},
		{[]string{"verify", good, "--parallel", "-1"}, "--parallel must be at least 1, not -1"},
		{[]string{"count", gz, "--compression", "NONE"}, "the file starts like GZIP data, not NONE: try --compression GZIP or auto"},
		{[]string{"cat", gz, "--compression", "none"}, "the file starts like GZIP data"},
		{[]string{"verify", gz, "--compression", "NONE"}, "the file starts like GZIP data"},
		// convert's --compression is the output's: the input's flag is named.
		{[]string{"convert", gz, "--input-compression", "NONE", "--out", filepath.Join(t.TempDir(), "o")}, "the file starts like GZIP data, not NONE: try --input-compression GZIP or auto"},
	} {
		code, out, errOut := run(t, tc.args...)
		if code == 0 || !strings.Contains(out+errOut, tc.want) {
			t.Errorf("%q: exit %d, output %q %q; want an error containing %q", tc.args, code, out, errOut, tc.want)
		}
		if strings.Contains(errOut, "batch_join") {
			t.Errorf("%q: TensorFlow's words leak out: %q", tc.args, errOut)
		}
	}
}

// The hint is only for a file that looks compressed: a plain file that is
// damaged gets no advice to change --compression.
func TestNoneHintOnlyForCompressedFiles(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.tfrecord")
	if err := os.WriteFile(bad, []byte("\x05\x00\x00\x00\x00\x00\x00\x00garbage-not-a-record"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, "count", "--compression", "NONE", bad)
	if code == 0 || strings.Contains(out+errOut, "starts like") {
		t.Errorf("exit %d, output %q %q", code, out, errOut)
	}
}

func TestConvertZstdWarns(t *testing.T) {
	dir := t.TempDir()
	in := writeExamples(t, dir, "in.tfrecord", 2, tfrecord.None)
	for _, tc := range []struct {
		comp string
		warn bool
	}{{"ZSTD", true}, {"zstd", true}, {"GZIP", false}, {"NONE", false}} {
		code, _, errOut := run(t, "convert", "--from", "tfrecord", in, "--out", filepath.Join(dir, "out-"+tc.comp), "--compression", tc.comp)
		if code != 0 {
			t.Fatalf("%s: %s", tc.comp, errOut)
		}
		if got := strings.Contains(errOut, "TensorFlow cannot read ZSTD"); got != tc.warn {
			t.Errorf("--compression %s: warning %v, want %v (stderr %q)", tc.comp, got, tc.warn, errOut)
		}
	}
	// The flag's help says so before anything is written.
	if _, help, _ := run(t, "convert", "--help"); !strings.Contains(help, "TensorFlow cannot read ZSTD") {
		t.Errorf("convert --help does not say TensorFlow cannot read ZSTD:\n%s", help)
	}
}

func TestRegionHint(t *testing.T) {
	const (
		region = "set AWS_REGION"
		creds  = "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE"
	)
	for _, tc := range []struct {
		err  string
		hint string
	}{
		// The AWS SDK v2's words when AWS_REGION and the config name none.
		{"blobfs: glob s3://b/x: blob (code=Unknown): operation error S3: ListObjectsV2, resolve auth scheme: resolve endpoint: endpoint rule error, Invalid region: region was not a valid DNS name.", region},
		// ... when credentials are set but no region.
		{"blobfs: glob s3://b/x*: blob (code=Unknown): operation error S3: ListObjectsV2, failed to resolve service endpoint, endpoint rule error, A region must be set when sending requests to S3.", region},
		{"operation error S3: GetObject, MissingRegion: could not find region configuration", region},
		// ... when a region is set but no credentials.
		{"blobfs: glob s3://b/x*: blob (code=Unknown): operation error S3: ListObjectsV2, get identity: get credentials: failed to refresh cached credentials, no EC2 IMDS role found, operation error ec2imds: GetMetadata, access disabled to EC2 IMDS via client option", creds},
		{"open x.tfrecord: no such file or directory", ""},
	} {
		got := withHint(errors.New(tc.err))
		for _, hint := range []string{region, creds} {
			if strings.Contains(got.Error(), hint) != (hint == tc.hint) {
				t.Errorf("withHint(%q) = %q; want the hint %q", tc.err, got, tc.hint)
			}
		}
		if !strings.HasPrefix(got.Error(), tc.err) {
			t.Errorf("withHint lost the error: %q", got)
		}
	}
}

// bench --parse parses into tensors with a compiled parser of the features
// the first records show, as a training job would, rather than rendering
// records as text: a feature whose type changes later is a parse error
// naming the record, and the output says what was parsed.
func TestBenchParsesIntoTensors(t *testing.T) {
	dir := t.TempDir()
	good := writeExamples(t, dir, "good.tfrecord", 5, tfrecord.None)
	code, out, errOut := run(t, "bench", "--parse", good)
	if code != 0 || !strings.Contains(out, "parsed into tensors, 128 records at a time: label FixedLen(int64, []), x FixedLen(float32, [])\n") {
		t.Errorf("bench --parse: exit %d, output %q %q", code, out, errOut)
	}

	recs := make([][]byte, benchRecordsSampled+1)
	for i := range recs {
		recs[i] = example.New().Int64("label", int64(i)).Marshal()
	}
	recs[benchRecordsSampled] = example.New().Float("label", 1.5).Marshal()
	changed := writeRecords(t, dir, "changed.tfrecord", tfrecord.None, recs...)
	code, out, errOut = run(t, "bench", "--parse", "--readers", "1", changed)
	if code == 0 || !strings.Contains(errOut, "label") {
		t.Errorf("bench --parse of a feature whose type changes: exit %d, output %q %q", code, out, errOut)
	}
}

// cat shows text bytes as text and other bytes as {"b64":...}, and keeps
// int64s beyond 2^53 exact for readers that hold numbers as float64.
func TestCatBytesAndInt64Modes(t *testing.T) {
	dir := t.TempDir()
	rec := example.New().
		Bytes("b", []byte("ann"), []byte{0xff, 0}, []byte("\x01\x02"), []byte("tab\there")).
		Int64("i", 1<<53, 1<<53+1, -(1<<53 + 1), -(1 << 53)).
		Marshal()
	p := writeRecords(t, dir, "r.tfrecord", tfrecord.None, rec)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, `{"features":{"b":{"bytes":["ann",{"b64":"/wA="},{"b64":"AQI="},"tab\there"]},"i":{"int64":[9007199254740992,"9007199254740993","-9007199254740993",-9007199254740992]}}}`},
		{[]string{"--bytes", "base64", "--int64", "number"}, `{"bytes":"base64","features":{"b":{"bytes":["YW5u","/wA=","AQI=","dGFiCWhlcmU="]},"i":{"int64":[9007199254740992,9007199254740993,-9007199254740993,-9007199254740992]}}}`},
		{[]string{"--bytes", "text", "--int64", "string"}, `{"bytes":"text","features":{"b":{"bytes":["ann","\ufffd\u0000","\u0001\u0002","tab\there"]},"i":{"int64":["9007199254740992","9007199254740993","-9007199254740993","-9007199254740992"]}}}`},
	} {
		code, out, errOut := run(t, append(append([]string{"cat"}, tc.args...), p)...)
		if code != 0 || out != tc.want+"\n" {
			t.Errorf("cat %q: exit %d %q\n got %s\nwant %s", tc.args, code, errOut, out, tc.want)
		}
	}
	for _, args := range [][]string{{"--bytes", "hex"}, {"--int64", "float"}} {
		if code, _, errOut := run(t, append(append([]string{"cat"}, args...), p)...); code == 0 || !strings.Contains(errOut, args[0]+" must be") {
			t.Errorf("cat %q: exit %d, %q", args, code, errOut)
		}
	}
}

// An s3:// name read with no region configured fails in the SDK's words,
// and Main adds which variable to set. The environment is the SDK's
// alone: static credentials, no config files, no instance metadata, so
// nothing is sent anywhere.
func TestS3WithoutRegion(t *testing.T) {
	if testing.Short() {
		t.Skip("the object store's client retries for a few seconds")
	}
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{
		"AWS_REGION": "", "AWS_DEFAULT_REGION": "", "AWS_PROFILE": "",
		"AWS_CONFIG_FILE": empty, "AWS_SHARED_CREDENTIALS_FILE": empty,
		"AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret",
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_ENDPOINT_URL": "", "AWS_ENDPOINT_URL_S3": "",
	} {
		t.Setenv(k, v)
	}
	code, _, errOut := run(t, "verify", "s3://sluice-no-such-bucket/train-*.tfrecord")
	if code == 0 || !strings.Contains(errOut, "no AWS region is configured: set AWS_REGION") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// A build without object stores (the Python package's command, by
// default) says so, and how to get one, when given an object-store name;
// a build with them says nothing more than the name's failure.
func TestNoObjectStoreHint(t *testing.T) {
	const hint = "this build of sluice reads local files only"
	if code, _, errOut := run(t, "count", "nosuch://b/x.tfrecord"); code != 1 || strings.Contains(errOut, hint) {
		t.Errorf("with object stores: exit %d, %q", code, errOut)
	}
	prev, ok := storage.Registered("s3")
	if !ok {
		t.Fatal("TestMain registered no s3 file system")
	}
	storage.Unregister("s3")
	t.Cleanup(func() { storage.Register("s3", prev) })
	code, _, errOut := run(t, "count", "s3://b/x.tfrecord")
	if code != 1 || !strings.Contains(errOut, `no file system registered for scheme "s3": s3://b/x.tfrecord (`+hint) ||
		!strings.Contains(errOut, "SLUICE_GO_TAGS=objectstore") {
		t.Errorf("without object stores: exit %d, %q", code, errOut)
	}
}

// A damaged file's error says how to find the damage and save the rest;
// a record over the size limit, or a compressed file read as NONE, is not
// damage and gets its own advice instead.
func TestDamageHint(t *testing.T) {
	dir := t.TempDir()
	p := writeExamples(t, dir, "d.tfrecord", 3, tfrecord.None)
	data, _ := os.ReadFile(p)
	data[len(data)/2] ^= 1
	os.WriteFile(p, data, 0o644)
	gz := writeExamples(t, dir, "z.tfrecord.gz", 3, tfrecord.Gzip)
	const salvage = "lists the damaged records; sluice convert --skip-corrupt "
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"count", p}, true},
		{[]string{"cat", p}, true},
		{[]string{"convert", p, "--out", filepath.Join(dir, "o")}, true},
		{[]string{"count", "--max-record-size", "4", p}, false},
		{[]string{"count", "--compression", "NONE", gz}, false},
	} {
		code, _, errOut := run(t, tc.args...)
		if code != 1 || strings.Contains(errOut, salvage) != tc.want {
			t.Errorf("%q: exit %d, %q; want the salvage hint: %v", tc.args, code, errOut, tc.want)
		}
		if tc.want && !strings.Contains(errOut, "sluice verify "+p+" "+salvage+p+" --out NEW") {
			t.Errorf("%q: the hint does not name the file: %q", tc.args, errOut)
		}
	}
}

// A file read with a --compression it certainly is not (its first bytes
// cannot begin such a stream, and are another's) is refused before it is
// read, saying what it looks like: not called damage, and not counted as
// bad records by verify.
func TestWrongCompression(t *testing.T) {
	dir := t.TempDir()
	files := map[tfrecord.Compression]string{}
	for _, c := range []tfrecord.Compression{tfrecord.None, tfrecord.Zlib, tfrecord.Gzip, tfrecord.Zstd} {
		files[c] = writeExamples(t, dir, "f-"+c.String()+".tfrecord", 2, c)
	}
	for _, tc := range []struct {
		file tfrecord.Compression
		flag string
		want string
	}{
		{tfrecord.None, "GZIP", "the file starts like uncompressed TFRecord data, not GZIP: try --compression NONE or auto"},
		{tfrecord.None, "ZLIB", "the file starts like uncompressed TFRecord data, not ZLIB: try --compression NONE or auto"},
		{tfrecord.None, "ZSTD", "the file starts like uncompressed TFRecord data, not ZSTD: try --compression NONE or auto"},
		{tfrecord.Gzip, "NONE", "the file starts like GZIP data, not NONE: try --compression GZIP or auto"},
		{tfrecord.Gzip, "zlib", "the file starts like GZIP data, not ZLIB: try --compression GZIP or auto"},
		{tfrecord.Zlib, "GZIP", "the file starts like ZLIB data, not GZIP: try --compression ZLIB or auto"},
		{tfrecord.Zstd, "GZIP", "the file starts like ZSTD data, not GZIP: try --compression ZSTD or auto"},
	} {
		name := files[tc.file]
		for _, cmd := range []string{"count", "cat", "stats"} {
			code, _, errOut := run(t, cmd, "--compression", tc.flag, name)
			if code != 1 || errOut != "sluice: "+name+": "+tc.want+"\n" {
				t.Errorf("%s --compression %s %s: exit %d, %q; want %q", cmd, tc.flag, tc.file, code, errOut, tc.want)
			}
		}
		// Standard input is peeked at for the same.
		data, _ := os.ReadFile(name)
		if err, _, _ := runIn(t, bytes.NewReader(data), "count", "--compression", tc.flag, "-"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("count --compression %s - of %s: %v; want %q", tc.flag, tc.file, err, tc.want)
		}
		code, out, _ := run(t, "verify", "--compression", tc.flag, name)
		if code != 1 || !strings.Contains(out, tc.want) || !strings.Contains(out, "0 good records in 1 file: 0 bad records, 1 file not checked") {
			t.Errorf("verify --compression %s %s: exit %d, %q", tc.flag, tc.file, code, out)
		}
	}
	// --json lists the file as unchecked, with no bad records.
	code, out, _ := run(t, "verify", "--json", "--compression", "GZIP", files[tfrecord.None])
	var report verifyReport
	if err := json.Unmarshal([]byte(out), &report); code != 1 || err != nil || report.Bad != 0 ||
		!slices.Equal(report.Unchecked, []string{files[tfrecord.None]}) || !report.Files[0].Unchecked {
		t.Errorf("verify --json: exit %d, %v, %s", code, err, out)
	}
	// A file like none of them (damage, another format) is read, and the
	// reader says what it finds: a compression would be a guess.
	junk := filepath.Join(dir, "junk.tfrecord")
	os.WriteFile(junk, []byte("\x00\x01not compressed, nor records"), 0o644)
	if code, _, errOut := run(t, "count", "--compression", "GZIP", junk); code != 1 || strings.Contains(errOut, "starts like") {
		t.Errorf("count --compression GZIP junk: exit %d, %q", code, errOut)
	}
	// Text is named as text, not as another compression.
	os.WriteFile(junk, []byte("not compressed, nor records"), 0o644)
	if code, _, errOut := run(t, "count", "--compression", "GZIP", junk); code != 1 || !strings.Contains(errOut, "starts like text") || strings.Contains(errOut, "try --compression") {
		t.Errorf("count --compression GZIP text: exit %d, %q", code, errOut)
	}
	// A file that starts as the compression named does is not named as
	// text for its first byte, ZLIB's "x": it said to convert it as CSV
	// (audit 68).
	os.WriteFile(junk, []byte("x"), 0o644)
	if code, _, errOut := run(t, "cat", "--compression", "ZLIB", junk); code != 1 || strings.Contains(errOut, "starts like") || !strings.Contains(errOut, "truncated") {
		t.Errorf("cat --compression ZLIB x: exit %d, %q", code, errOut)
	}
	// Text too short for the named compression's magic number, which it
	// does not begin, is still named as text (audit 70).
	// Nor is text whose first two letters make a ZLIB header (audit 72).
	for _, tc := range []struct{ text, c string }{{"x", "GZIP"}, {"ab\n", "ZSTD"}, {"a", "ZLIB"}, {"hC,1,2\nfoo,bar\n", "ZLIB"}, {"x^ and more text\n", "ZLIB"}} {
		os.WriteFile(junk, []byte(tc.text), 0o644)
		if code, _, errOut := run(t, "cat", "--compression", tc.c, junk); code != 1 || !strings.Contains(errOut, "starts like text") {
			t.Errorf("cat --compression %s %q: exit %d, %q", tc.c, tc.text, code, errOut)
		}
	}
}

// A negative --limit other than -1 is refused: head -n -5 means "all but
// the last 5" to GNU head, and read everything here.
func TestNegativeLimit(t *testing.T) {
	file := writeExamples(t, t.TempDir(), "e.tfrecord", 3, tfrecord.None)
	for _, tc := range []struct {
		args []string
		want string // in the error; "" for success
	}{
		{[]string{"head", "-n", "-5", file}, "-n (--limit) must be a count of records, or -1 for all, not -5"},
		{[]string{"head", "--limit", "-2", file}, "-n (--limit) must be"},
		{[]string{"cat", "--limit", "-5", file}, "--limit must be a count of records, or -1 for all, not -5"},
		{[]string{"schema", "--limit", "-5", file}, "--limit must be"},
		{[]string{"stats", "--limit", "-5", file}, "--limit must be"},
		{[]string{"head", "-n", "-1", file}, ""},
		{[]string{"cat", "--limit", "0", file}, ""},
		{[]string{"schema", "--limit", "-1", file}, ""},
		{[]string{"stats", "--limit", "-1", file}, ""},
	} {
		code, _, errOut := run(t, tc.args...)
		if tc.want == "" {
			if code != 0 {
				t.Errorf("%v: exit %d: %s", tc.args, code, errOut)
			}
			continue
		}
		if code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want an error with %q", tc.args, code, errOut, tc.want)
		}
	}
}

// A text file given where TFRecord is read is named as text, with the
// convert that reads it, not as damage to salvage.
func TestTextInputHint(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	files := []struct{ path, want string }{
		{file("a.csv", "id,name,score\n1,ann,0.5\n2,bob,1.5\n"), "starts like text, CSV or JSON lines, not TFRecord: sluice convert --from csv"},
		{file("b.jsonl", "{\"id\": 1, \"name\": \"ann\"}\n"), "starts like text, JSON lines, not TFRecord: sluice convert --from jsonl"},
		{file("c.json", "{\"features\":{\"label\":{\"int64\":[7]}}}\n"), "starts like sluice cat's JSON lines, not TFRecord: sluice convert --from json"},
		{file("d.txt", "héllo wörld, ünïcödé\n"), "starts like text"},
		{file("e.txt", "7\n"), "starts like text"}, // shorter than a record's header
		// Only the start is looked at: a Latin-1 letter further on does
		// not make a CSV binary.
		{file("f.csv", "name,city\n1,Montr\xe9al\n"), "starts like text, CSV or JSON lines"},
		// Text whose first two bytes look like a zlib header, which
		// decompress to garbage or not at all.
		{file("g.csv", "x^2,y\n1,2\n"), "starts like text, CSV or JSON lines"},
		{file("h.csv", "XG,y\n1,2\n"), "starts like text, CSV or JSON lines"},
	}
	// Compressed text is text too, once decompressed (convert --from csv
	// reads a .csv.gz as it is).
	for _, c := range []tfrecord.Compression{tfrecord.Gzip, tfrecord.Zlib, tfrecord.Zstd} {
		var buf bytes.Buffer
		w, err := tfrecord.NewCompressor(c, &buf)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, "id,name,score\n1,ann,0.5\n2,bob,1.5\n")
		w.Close()
		files = append(files, struct{ path, want string }{file("f.csv."+c.String(), buf.String()), "starts like text, CSV or JSON lines, not TFRecord: sluice convert --from csv"})
	}
	for _, f := range files {
		for _, cmd := range []string{"count", "cat", "head", "schema", "stats", "index", "verify"} {
			code, out, errOut := run(t, cmd, f.path)
			if got := out + errOut; code == 0 || !strings.Contains(got, f.want) || strings.Contains(got, "--skip-corrupt") {
				t.Errorf("%s %s: exit %d, %q; want an error with %q and no salvage advice", cmd, filepath.Base(f.path), code, got, f.want)
			}
		}
	}
}

func TestLooksLikeText(t *testing.T) {
	tfr := writeExamples(t, t.TempDir(), "e.tfrecord", 1, tfrecord.None)
	b, err := os.ReadFile(tfr)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		prefix string
		want   bool
	}{
		{"a,b,c\n1,2,3\n4,5,6\n", true},
		{"\ufeffa,b\r\n1,2\r\n", true},
		{"naïve,x\ncafé,2\n\xc3", true}, // a character cut short at the end
		{"\t{\"a\": [1, 2]}", true},
		{"ab\xff\xfecdefgh", false}, // not UTF-8
		{"abc\x00defgh", false},
		{"PAR1", true}, // otherFormat checks Parquet first
		{string(b[:16]), false},
		{"\x1f\x8b\x08\x00\x00\x00\x00\x00", false}, // GZIP
		{"", false},
	} {
		if got := looksLikeText([]byte(tc.prefix)); got != tc.want {
			t.Errorf("looksLikeText(%q) = %v, want %v", tc.prefix, got, tc.want)
		}
	}
}

// beginsAs takes a prefix shorter than a magic number for its compression
// only if its bytes are the number's first.
func TestBeginsAs(t *testing.T) {
	for _, tc := range []struct {
		prefix string
		c      tfrecord.Compression
		want   bool
	}{
		{"", tfrecord.Gzip, true},
		{"\x1f", tfrecord.Gzip, true},
		{"\x1f\x8b\x08", tfrecord.Gzip, true},
		{"x", tfrecord.Gzip, false},
		{"\x1f\x8c", tfrecord.Gzip, false},
		{"x", tfrecord.Zlib, true},
		{"x\x9c", tfrecord.Zlib, true},
		{"xa", tfrecord.Zlib, false},
		{"a", tfrecord.Zlib, false},
		{"\x28\xb5", tfrecord.Zstd, true},
		{"\x28\xb5\x2f\xfd\x00", tfrecord.Zstd, true},
		{"\x5a\x2a\x4d", tfrecord.Zstd, true},
		{"\x5a\x2a\x4d\x18", tfrecord.Zstd, true},
		{"ab\n", tfrecord.Zstd, false},
		{"\x5a\x2b", tfrecord.Zstd, false},
	} {
		if got := beginsAs([]byte(tc.prefix), tc.c); got != tc.want {
			t.Errorf("beginsAs(%q, %v) = %v, want %v", tc.prefix, tc.c, got, tc.want)
		}
	}
}

// With --data, --train and --test only limit what is read: the bound on
// images to generate does not apply (audit 117).
func TestDemoDataSizesUnbounded(t *testing.T) {
	code, _, errOut := run(t, "demo", "--data", t.TempDir(), "--train", "20000000")
	if code == 0 || strings.Contains(errOut, "must be at most") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

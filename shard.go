package sluice

import (
	"fmt"
	"slices"
)

// shardFiles returns this worker's files with Shard(index, count): those
// at positions index, index+count, ... of the files sorted by name
// (duplicates kept), in the order the data set lists them. Workers that
// list the same files in different orders (a directory listing, several
// patterns) so split them between them, each file read by one.
func (d *Dataset) shardFiles(files []string) ([]string, error) {
	s := d.settings
	if s.shard[1] == 0 {
		return files, nil
	}
	index, count := s.shard[0], s.shard[1]
	if count < 0 || index < 0 || index >= count {
		return nil, fmt.Errorf("sluice: %s: Shard(%d, %d): %w (want 0 <= index < count)", d.kind, index, count, ErrInvalid)
	}
	if index >= len(files) {
		return nil, fmt.Errorf("sluice: %s: Shard(%d, %d) of %d files is empty: %w (fewer files than workers: use at most as many workers as files, or a global shuffle, which shards the records of each file)", d.kind, index, count, len(files), ErrInvalid)
	}
	sorted := slices.Sorted(slices.Values(files))
	want := make(map[string]int)
	for i := index; i < len(sorted); i += count {
		want[sorted[i]]++
	}
	mine := make([]string, 0, (len(files)-index+count-1)/count)
	for _, f := range files {
		if want[f] > 0 {
			want[f]--
			mine = append(mine, f)
		}
	}
	return mine, nil
}

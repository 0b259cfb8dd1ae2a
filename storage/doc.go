// Package storage opens, creates and globs the files a pipeline reads and
// writes, by name. A name is a local path, a file:// URL, or a URL whose
// scheme a registered [FS] serves (for example an object store registered
// for "s3" or "gs"), so that the rest of sluice handles every kind of
// location through the same three calls: [Open], [Create] and [Glob].
//
// Writes that must be all or nothing go through [CreatePending]: the file
// is written under a temporary name beside its final one (see
// [TempMarker]) and renamed into place only when complete, so no reader
// ever sees a short file under the final name; a killed writer's
// temporaries are found by [Leftovers] and removed by [RemoveLeftover],
// which leaves those of writes still running (a local writer holds its
// temporary locked), and a writer about to write clears those of its
// files with [RemoveLeftovers], which refuses beside a running writer.
// File systems that can rename
// implement [RenameFS]. A rename that happened is never reported as one
// that did not: when the local directory cannot be synced after it, the
// file is under its final name and the error wraps [ErrNotDurable] (the
// name might not survive a crash of the machine), and [CommitAll] renames
// the other parts too, so that an error or a signal leaves a data set all
// new or all old; a rename that fails after others went through (an
// object store's copy refused) leaves new parts beside old ones, and the
// error says so, naming the new. Only a kill or crash within the renames themselves,
// which [CommitAll] makes one right after another, can leave it mixed,
// and then the parts not renamed are left under their temporary names.
//
// Only local files are built in. Errors name the path.
package storage

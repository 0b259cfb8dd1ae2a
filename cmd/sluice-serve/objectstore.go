//go:build objectstore

package main

import "github.com/sluiceml/sluice/storage/blobfs"

// Built with -tags objectstore, the server reads s3://, gs://, azblob://
// and mem:// names too. It is not the default because the cloud SDKs make
// the binary (and every wheel) 56 MB instead of 16 MB, stripped, and a first build
// minutes longer. SLUICE_S3_PARAMS points it at an S3-compatible server
// (blobfs.EnvParams), as it does the sluice command.
func init() { blobfs.RegisterDefault(blobfs.EnvParams()) }

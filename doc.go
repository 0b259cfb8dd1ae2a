// Package sluice reads training data: files in, named batches out.
package sluice

// Package coord runs the goroutines of an input pipeline and stops them
// together: it is TensorFlow's tf.train.Coordinator and QueueRunner in Go.
//
// A Coordinator is a stop flag shared by a set of goroutines, plus the
// first error any of them reported. Goroutines started with Coordinator.Go
// are registered under a name and run until they return; when one returns
// an error, the coordinator stops, which cancels the context every
// goroutine was given (Coordinator.Context, Coordinator.Done), so every
// blocking call in the pipeline returns at once. End of input (io.EOF) is
// a clean stop, not an error; CleanStopErrors adds other clean kinds.
// Join waits for the goroutines, giving them a grace period once a stop
// was requested, and returns the first error, or one that names the
// goroutines still running in TensorFlow's words:
//
//	Coordinator stopped with threads still running: QueueRunnerThread-filenames-enqueue
//
// A QueueRunner keeps a queue filled: it runs one or more enqueue steps,
// each in its own goroutine ("QueueRunnerThread-<queue>-<step>"), over and
// over until the input ends or the coordinator stops. When the last of
// them sees end of input or a closed queue it closes the queue, so the end
// cascades to the next stage; when the coordinator stops, a goroutine
// named "QueueRunnerThread-<queue>-close_on_stop" closes the queue with
// cancel, so no producer or consumer stays blocked on it. StartAll starts
// every runner of a pipeline under one coordinator, as
// start_queue_runners starts the QUEUE_RUNNERS collection.
//
//	c := coord.New()
//	qr, _ := coord.NewQueueRunner(q, []coord.Step{produce})
//	coord.StartAll(ctx, c, qr)
//	for {
//		e, err := q.Dequeue(ctx)
//		if errors.Is(err, io.EOF) {
//			break // every element was delivered
//		}
//		...
//	}
//	return c.Join(ctx, 10*time.Second)
//
// Where Go differs from Python, the package does what Go code expects:
//
//   - Goroutines are functions, not threads: Coordinator.Go registers and
//     starts one; there is no separate register_thread.
//   - Errors are values. RequestStop after Join cannot raise; it returns
//     the error to its caller instead (CO-11). Join returns the recorded
//     error rather than re-raising it, and a panic in a goroutine or step
//     is recovered and reported as an error.
//   - A caller's cancelled context is a clean stop. Every call that
//     blocks takes a context: Join (besides its grace period),
//     WaitForStop (whose timeout is the context's deadline) and
//     QueueRunner.Wait; Coordinator.Done serves a select.
//   - Join has no ignore_live_threads: a caller that wants to go on with
//     stragglers tests the error with errors.Is(err, ErrStillRunning).
//   - Graph-era checks (start_queue_runners' session checks, QueueRunner
//     protocol-buffer serialization, QR-10 and QR-11) have no counterpart.
package coord

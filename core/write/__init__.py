"""The write path: turning conversation turns into typed, scored memory units
(extraction), routing them to a memory layer, embedding them, and the job queue that
runs this asynchronously for agents."""

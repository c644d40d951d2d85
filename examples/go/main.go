// Command caller is a Go service starting and reading ReviewThenGenerate jobs with Temporal's Go SDK.
//
// Shown in docs/starting-jobs.md and run by test/go/caller.test.ts against the dev server, encryption off
// and on. Plain JSON in and out: the shapes are in the package's schemas/*.schema.json.
//
//	go run . --key <business key> [--cancel-at-stage generating] '<job input JSON>'
//
// Environment: TEMPORAL_ADDRESS (default `localhost:7233`), TEMPORAL_NAMESPACE (default `default`),
// TEMPORAL_TASK_QUEUE (default `video-generation`: the package's defaults, so that with nothing set it meets
// the package's worker with nothing set), and PAYLOAD_ENCRYPTION_KEYS (`id:base64key,...`, the worker's
// keys) when the worker encrypts payloads. Prints one JSON object: the outcome, the stages the progress query showed, and
// the result, the failure (type, message, details) or the cancellation.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
)

// Output is what the caller prints.
type Output struct {
	WorkflowID   string         `json:"workflowId"`
	Stages       []string       `json:"stages"`
	LastProgress map[string]any `json:"lastProgress"`
	Outcome      string         `json:"outcome"` // succeeded, failed or cancelled
	Result       map[string]any `json:"result,omitempty"`
	Failure      *Failure       `json:"failure,omitempty"`
}

// Failure is a failed run's typed failure.
type Failure struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Details []any  `json:"details"`
}

func getenv(name, fallback string) string {
	if value := os.Getenv(name); value != "" {
		return value
	}
	return fallback
}

func clientOptions() (client.Options, error) {
	// The SDK's own log goes to stderr, warnings and up: stdout carries only the JSON the caller prints.
	sdkLog := slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})
	options := client.Options{
		HostPort:  getenv("TEMPORAL_ADDRESS", "localhost:7233"),
		Namespace: getenv("TEMPORAL_NAMESPACE", "default"),
		Logger:    log.NewStructuredLogger(slog.New(sdkLog)),
	}
	keys := os.Getenv("PAYLOAD_ENCRYPTION_KEYS")
	if keys == "" {
		return options, nil
	}
	codec, err := NewEncryptionCodec(keys)
	if err != nil {
		return options, err
	}
	dataConverter := converter.NewCodecDataConverter(converter.GetDefaultDataConverter(), codec)
	options.DataConverter = dataConverter
	// The worker encrypts failure messages too (encodeCommonAttributes): the failure converter needs the codec
	// to read them (it decodes them whatever EncodeCommonAttributes says; true encodes the caller's own so).
	options.FailureConverter = temporal.NewDefaultFailureConverter(temporal.DefaultFailureConverterOptions{
		DataConverter:          dataConverter,
		EncodeCommonAttributes: true,
	})
	return options, nil
}

func run(ctx context.Context, job map[string]any, key, cancelAtStage string) (*Output, error) {
	options, err := clientOptions()
	if err != nil {
		return nil, err
	}
	c, err := client.DialContext(ctx, options)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	// By name, with plain JSON. The business key is the workflow id, and a key runs once: a repeated start
	// (the run still running or closed) returns that run instead of starting another job.
	workflowRun, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                    key,
		TaskQueue:             getenv("TEMPORAL_TASK_QUEUE", "video-generation"),
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
	}, "ReviewThenGenerate", job)
	if err != nil {
		return nil, err
	}
	out := &Output{WorkflowID: workflowRun.GetID(), Stages: []string{}}
	var result map[string]any // schemas/job-result.schema.json
	done := make(chan error, 1)
	go func() { done <- workflowRun.Get(ctx, &result) }()
	var runErr error
poll:
	for {
		var progress map[string]any // schemas/job-progress.schema.json
		value, err := c.QueryWorkflow(ctx, workflowRun.GetID(), workflowRun.GetRunID(), "progress")
		if err == nil {
			err = value.Get(&progress)
		}
		if err != nil {
			select {
			case runErr = <-done:
				break poll // the run closed between two queries
			case <-time.After(time.Second):
				return nil, err
			}
		}
		out.LastProgress = progress
		stage, _ := progress["stage"].(string)
		if len(out.Stages) == 0 || out.Stages[len(out.Stages)-1] != stage {
			out.Stages = append(out.Stages, stage)
		}
		if cancelAtStage != "" && stage == cancelAtStage {
			if err := c.CancelWorkflow(ctx, workflowRun.GetID(), workflowRun.GetRunID()); err != nil {
				return nil, err
			}
			cancelAtStage = ""
		}
		select {
		case runErr = <-done:
			break poll
		case <-time.After(200 * time.Millisecond):
		}
	}
	var appErr *temporal.ApplicationError
	var canceledErr *temporal.CanceledError
	switch {
	case runErr == nil:
		out.Outcome, out.Result = "succeeded", result
	case errors.As(runErr, &appErr):
		// The failure type is the contract (FailureType); details[0] is described by
		// schemas/failure-details/<type>.schema.json.
		failure := &Failure{Type: appErr.Type(), Message: appErr.Message(), Details: []any{}}
		if appErr.HasDetails() {
			var details any
			if err := appErr.Details(&details); err != nil {
				return nil, err
			}
			failure.Details = append(failure.Details, details)
		}
		out.Outcome, out.Failure = "failed", failure
	case errors.As(runErr, &canceledErr):
		out.Outcome = "cancelled"
	default:
		return nil, runErr
	}
	return out, nil
}

func main() {
	key := flag.String("key", "", "the business key (workflow id)")
	cancelAtStage := flag.String("cancel-at-stage", "", "cancel the job when its progress shows this stage")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(),
			"usage: caller --key <business key> [--cancel-at-stage <stage>] '<job input JSON>'")
		flag.PrintDefaults()
	}
	flag.Parse()
	var job map[string]any
	if *key == "" || flag.NArg() != 1 || json.Unmarshal([]byte(flag.Arg(0)), &job) != nil {
		flag.Usage()
		os.Exit(2)
	}
	out, err := run(context.Background(), job, *key, *cancelAtStage)
	if err != nil {
		fmt.Fprintln(os.Stderr, "caller:", err)
		os.Exit(1)
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "caller:", err)
		os.Exit(1)
	}
}

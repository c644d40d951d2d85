package main

// The codec's edges, as src/codec/encryption-codec.ts and src/codec/keys.ts have them (test/codec/ checks
// those there). That it reads and writes what our worker does is test/go/caller.test.ts, which also runs
// this `go test`.

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"

	commonpb "go.temporal.io/api/common/v1"
	"google.golang.org/protobuf/proto"
)

var (
	key1 = bytes.Repeat([]byte{1}, 32)
	key2 = bytes.Repeat([]byte{0xfb}, 32) // its URL-safe base64 differs from the standard one
	b64  = base64.StdEncoding.EncodeToString
)

func mustCodec(t *testing.T, keys string) *EncryptionCodec {
	t.Helper()
	codec, err := NewEncryptionCodec(keys)
	if err != nil {
		t.Fatal(err)
	}
	return codec
}

func plainPayload() *commonpb.Payload {
	return &commonpb.Payload{
		Metadata: map[string][]byte{"encoding": []byte("json/plain")},
		Data:     []byte(`{"taskId":"t-1"}`),
	}
}

func TestRoundTripWithTheFirstKeyAndOnlyOurMetadata(t *testing.T) {
	codec := mustCodec(t, "k1:"+b64(key1)+",k2:"+b64(key2))
	encoded, err := codec.Encode([]*commonpb.Payload{plainPayload()})
	if err != nil {
		t.Fatal(err)
	}
	p := encoded[0]
	metadata := map[string]string{}
	for k, v := range p.Metadata {
		metadata[k] = string(v)
	}
	if len(metadata) != 2 || metadata["encoding"] != "binary/encrypted" || metadata["encryption-key-id"] != "k1" {
		t.Fatalf("metadata %v", metadata)
	}
	whole, _ := proto.Marshal(plainPayload())
	if len(p.Data) != 12+len(whole)+16 || bytes.Contains(p.Data, []byte("t-1")) {
		t.Fatalf("data is not nonce ‖ ciphertext ‖ tag of the whole payload: %d bytes", len(p.Data))
	}
	again, _ := codec.Encode([]*commonpb.Payload{plainPayload()})
	if bytes.Equal(p.Data[:12], again[0].Data[:12]) {
		t.Fatal("the nonce repeats")
	}
	decoded, err := codec.Decode(encoded)
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(decoded[0], plainPayload()) {
		t.Fatalf("decoded %v", decoded[0])
	}
}

func TestKeysAsThePackageReadsThem(t *testing.T) {
	urlSafe := strings.TrimRight(base64.URLEncoding.EncodeToString(key2), "=")
	encoded, _ := mustCodec(t, "old:"+b64(key2)).Encode([]*commonpb.Payload{plainPayload()})
	// Newlines, blanks and comments; URL-safe without padding; the old key after the new one still decrypts.
	rotated := mustCodec(t, "# rotated\n new : "+b64(key1)+" \n\n old:"+urlSafe+",")
	if rotated.encryptingKeyID != "new" {
		t.Fatalf("encrypting key %q", rotated.encryptingKeyID)
	}
	if _, err := rotated.Decode(encoded); err != nil {
		t.Fatal(err)
	}
	refused := []string{
		"", "# none", "k1", "k 1:" + urlSafe, "k1:" + urlSafe + ",k1:" + urlSafe,
		"k1:" + b64(key1[:16]), "k1:not*base64",
	}
	for _, keys := range refused {
		if _, err := NewEncryptionCodec(keys); err == nil {
			t.Errorf("accepted %q", keys)
		} else if strings.Contains(err.Error(), urlSafe) {
			t.Errorf("the error shows key material: %v", err)
		}
	}
}

func TestDecodeRefusesWhatItCannotReadAndPassesThePlainThrough(t *testing.T) {
	codec := mustCodec(t, "k1:"+b64(key1))
	plain := plainPayload()
	if out, err := codec.Decode([]*commonpb.Payload{plain}); err != nil || out[0] != plain {
		t.Fatalf("a payload that is not encrypted did not pass through: %v", err)
	}
	encoded, _ := codec.Encode([]*commonpb.Payload{plainPayload()})
	sealed := encoded[0]
	tampered := &commonpb.Payload{Metadata: sealed.Metadata, Data: bytes.Clone(sealed.Data)}
	tampered.Data[20] ^= 1
	noKeyID := &commonpb.Payload{Metadata: map[string][]byte{"encoding": []byte("binary/encrypted")}, Data: sealed.Data}
	truncated := &commonpb.Payload{Metadata: sealed.Metadata, Data: sealed.Data[:27]}
	cases := map[string]struct {
		codec   *EncryptionCodec
		payload *commonpb.Payload
		says    string
	}{
		"tampered":       {codec, tampered, "failed authentication"},
		"another key":    {mustCodec(t, "k1:"+b64(key2)), sealed, "failed authentication"},
		"unknown key id": {mustCodec(t, "k9:"+b64(key1)), sealed, `key id "k1" which is not in`},
		"no key id":      {codec, noKeyID, "no encryption-key-id"},
		"truncated":      {codec, truncated, "truncated"},
	}
	for name, c := range cases {
		_, err := c.codec.Decode([]*commonpb.Payload{c.payload})
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

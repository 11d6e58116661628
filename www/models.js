// Model presets of the inspector: real context windows and output caps, copied from
// the model registry of @earendil-works/pi-ai 0.85.1 (its providers/data/*.json;
// tests/js/inspector-load.test.mjs checks every entry against it).

export const PRESETS = [
  { provider: "anthropic", id: "claude-opus-4-5", contextWindow: 200000, maxTokens: 64000 },
  { provider: "anthropic", id: "claude-sonnet-4-5", contextWindow: 1000000, maxTokens: 64000 },
  { provider: "anthropic", id: "claude-haiku-4-5", contextWindow: 200000, maxTokens: 64000 },
  { provider: "anthropic", id: "claude-opus-4-6", contextWindow: 1000000, maxTokens: 128000 },
  { provider: "anthropic", id: "claude-sonnet-4-6", contextWindow: 1000000, maxTokens: 128000 },
  { provider: "openai", id: "gpt-5", contextWindow: 400000, maxTokens: 128000 },
  { provider: "openai", id: "gpt-5-mini", contextWindow: 400000, maxTokens: 128000 },
  { provider: "openai", id: "gpt-4.1", contextWindow: 1047576, maxTokens: 32768 },
  { provider: "openai", id: "gpt-4o", contextWindow: 128000, maxTokens: 16384 },
  { provider: "openai", id: "o3", contextWindow: 200000, maxTokens: 100000 },
  { provider: "openai", id: "gpt-4", contextWindow: 8192, maxTokens: 8192 },
  { provider: "google", id: "gemini-2.5-pro", contextWindow: 1048576, maxTokens: 65536 },
  { provider: "google", id: "gemini-2.5-flash", contextWindow: 1048576, maxTokens: 65536 },
];

/** `provider/id`, the key the select uses. */
export const presetKey = (p) => `${p.provider}/${p.id}`;

/**
 * The preset of a model id a file recorded (`claude-opus-4-5`, `anthropic/claude-opus-4-5`
 * or a dated id such as `claude-opus-4-5-20251101`), or undefined.
 */
export function findPreset(modelId) {
  if (typeof modelId !== "string" || !modelId) return undefined;
  const id = modelId.includes("/") ? modelId.slice(modelId.lastIndexOf("/") + 1) : modelId;
  const undated = id.replace(/-\d{8}$/, "");
  return PRESETS.find((p) => p.id === id) ?? PRESETS.find((p) => p.id === undated);
}

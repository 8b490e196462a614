/**
 * The forms of a reaction the service stores beside its emoji: `alias` (the emoji's CLDR short name as
 * `:thumbs_up_medium_skin_tone:`), `detoned` (the emoji without skin-tone modifiers) and `detoned_alias`. Names
 * come from Unicode's emoji data (the `unicode-emoji-json` package, bundled into the bin at build time).
 */
import byEmoji from "unicode-emoji-json/data-by-emoji.json" with { type: "json" };

const NAMES = byEmoji as Record<string, { slug: string }>;
const TONES: Record<string, string> = {
  "\u{1F3FB}": "light",
  "\u{1F3FC}": "medium-light",
  "\u{1F3FD}": "medium",
  "\u{1F3FE}": "medium-dark",
  "\u{1F3FF}": "dark",
};
const TONE = /[\u{1F3FB}-\u{1F3FF}]/gu;

/** `emoji` without skin-tone modifiers. */
export const detone = (emoji: string): string => emoji.replace(TONE, "");

/** `:short_name:` of one emoji, or the emoji itself when Unicode's data has no name for it. */
export function emojiAlias(emoji: string): string {
  const base = detone(emoji);
  const entry = NAMES[base] ?? NAMES[base.replace(/\uFE0F/g, "")] ?? NAMES[`${base}\uFE0F`];
  if (!entry) return emoji;
  const tones = [...emoji.matchAll(TONE)].map((m) => TONES[m[0]]!);
  const unique = [...new Set(tones)];
  const suffix = unique.length ? `_${unique.join("_")}_skin_tone` : "";
  return `:${entry.slug}${suffix}:`;
}

/** The payload the service stores for a `wandb.reaction.1`: the emoji and its alias and detoned forms. */
export function reactionPayload(emoji: string): {
  emoji: string;
  alias: string;
  detoned: string;
  detoned_alias: string;
} {
  const detoned = detone(emoji);
  return { emoji, alias: emojiAlias(emoji), detoned, detoned_alias: emojiAlias(detoned) };
}

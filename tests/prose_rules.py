"""What counts as a number typed by hand in prose (pages and figure captions)."""

import re

# Digits a page may type: years, arXiv ids and table numbers of cited works, and model names.
ALLOWED = re.compile(r"\b(?:19|20)\d\d\b|arXiv:\d{4}\.\d{4,5}|(?:Table|表) ?\d+(?:\.\d+)?|GPT-[23]|\bT5(?:-11B)?\b|Gemma \d+B|Llama \d(?: \d+B)?|LLaMA|CC BY \d\.\d|Mistral 7B|DeepSeek-V[23]|Falcon-7B")


def prose(text: str) -> str:
    """What a reader reads as words: without code, math, constructs and heading ids."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"\$\$.*?\$\$", "", text, flags=re.S)
    text = re.sub(r"\$[^$\n]+\$|`[^`\n]+`|\{\{.*?\}\}|\{#[^}]*\}", "", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)  # link targets
    return ALLOWED.sub("", text)

"""The page-construct language ({{ figure }}, {{ value }}, {{ screen … print … }}, ...): a leaf that
captions, downloads and pages share. It imports nothing of figures; numbers come from mha_ref."""

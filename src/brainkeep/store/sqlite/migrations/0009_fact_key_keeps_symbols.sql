-- The exact-duplicate key of a fact (memories.normalized_text) now folds only
-- whitespace and case (core/memories/writes.py normalize_fact): the old key
-- dropped signs, digit punctuation and symbols, so "-500 EUR" matched "500 EUR".
-- Recompute every stored key with the new rule, so a restated old fact still
-- matches its row. brainkeep_fact_key is that Python function, registered on
-- every connection by the engine. Redacted rows keep their empty key (their
-- text is a placeholder and must never match).
UPDATE memories
SET normalized_text = brainkeep_fact_key(text)
WHERE redacted_at IS NULL AND text IS NOT NULL;

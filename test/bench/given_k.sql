-- given_k(model, split): each set of fm_sets (cfg, split, set_id, ord, label, v)
-- of that split clustered by the model given its true k (dac.k, set for that
-- set alone), as embeddings.sh and referee_rules.sh read them.
CREATE FUNCTION given_k(m text, sp text) RETURNS TABLE (cfg text, split text, set_id int, c int[])
LANGUAGE plpgsql SET search_path = public AS $f$
DECLARE r record;
BEGIN
    FOR r IN SELECT s.cfg, s.split, s.set_id, count(DISTINCT s.label) AS k FROM fm_sets s WHERE s.split = sp
             GROUP BY 1, 2, 3 ORDER BY 1, 2, 3 LOOP
        PERFORM set_config('dac.k', r.k::text, true);
        cfg := r.cfg; split := r.split; set_id := r.set_id;
        SELECT dac_cluster_agg(s.v, m ORDER BY s.ord) INTO c FROM fm_sets s
        WHERE s.cfg = r.cfg AND s.split = r.split AND s.set_id = r.set_id;
        RETURN NEXT;
    END LOOP;
END $f$;

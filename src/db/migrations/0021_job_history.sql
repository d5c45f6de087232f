-- A contact's job history (`jobHistory`: {company, title, startDate, endDate}, newest first), kept by the
-- database as the contact's title and company change, whoever changes them (pushes, bulk updates, merges).
-- Dates are the days Hearth saw a job begin and end (UTC); the current job has no end. At most 20 jobs are
-- kept. Clearing both title and company ends the current job and begins none; erasure empties the history
-- with the rest of the contact's personal data.
create function contact_job_changed() returns trigger language plpgsql as $$
declare
  today text := to_char(now() at time zone 'UTC', 'YYYY-MM-DD');
  history jsonb := coalesce(new.job_history, '[]'::jsonb);
  company text := nullif(btrim(new.company_name), '');
  title text := nullif(btrim(new.title), '');
begin
  -- Already the current job (a merge brings the job with the history that holds it): nothing begins.
  if jsonb_array_length(history) > 0 and history -> 0 ->> 'endDate' is null
     and history -> 0 ->> 'company' is not distinct from company and history -> 0 ->> 'title' is not distinct from title then
    return new;
  end if;
  if jsonb_array_length(history) > 0 and history -> 0 ->> 'endDate' is null then
    history := jsonb_set(history, '{0,endDate}', to_jsonb(today));
  end if;
  if company is not null or title is not null then
    history := jsonb_build_array(jsonb_build_object('company', company, 'title', title, 'startDate', today, 'endDate', null)) || history;
  end if;
  new.job_history := (select coalesce(jsonb_agg(e order by n), '[]'::jsonb) from jsonb_array_elements(history) with ordinality as j(e, n) where n <= 20);
  return new;
end
$$;

-- What contacts already hold: their current job, begun when the contact was made.
update contacts set job_history = jsonb_build_array(jsonb_build_object(
    'company', nullif(btrim(company_name), ''), 'title', nullif(btrim(title), ''),
    'startDate', to_char(created_at at time zone 'UTC', 'YYYY-MM-DD'), 'endDate', null))
where job_history = '[]'::jsonb and (nullif(btrim(title), '') is not null or nullif(btrim(company_name), '') is not null);

-- The conditions are checked without calling the function: most updates leave both alone.
create trigger contacts_job_history_inserted before insert on contacts
  for each row when (new.title is not null or new.company_name is not null) execute function contact_job_changed();
create trigger contacts_job_history_updated before update of title, company_name on contacts
  for each row when (old.title is distinct from new.title or old.company_name is distinct from new.company_name)
  execute function contact_job_changed();

-- Every app user is a person of the community's data: `/me.id` is their contact and is never null. The
-- contact is found by the login email's identity while there is one (it follows merges); `contact_id`
-- keeps the contact made for the user, for when that identity is gone (erased, or never held).
alter table app_users add column contact_id bigint;
alter table app_users
  add constraint app_users_contact foreign key (community_id, contact_id)
  references contacts (community_id, id) on delete set null (contact_id);

-- Users made before: the contact holding their login email, else a new one with that email.
do $$
declare
  u record;
  found_id bigint;
begin
  for u in select community_id, id, name, login_email from app_users where contact_id is null loop
    select contact_id into found_id from contact_identities
      where community_id = u.community_id and type = 'email' and value = lower(btrim(u.login_email));
    if found_id is null then
      insert into contacts (community_id, name, full_name, primary_email)
        values (u.community_id, u.name, u.name, btrim(u.login_email))
        returning id into found_id;
      insert into contact_identities (community_id, type, value, display_value, contact_id)
        values (u.community_id, 'email', lower(btrim(u.login_email)), btrim(u.login_email), found_id);
    end if;
    update app_users set contact_id = found_id where community_id = u.community_id and id = u.id;
  end loop;
end
$$;

package dev.converge.examples.orders;

import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.stereotype.Repository;

/** The orders table. Every state change is conditional, so a step delivered twice changes nothing twice. */
@Repository
public class Orders {
    public record Order(long id, String email, long amountCents, String state) {
    }

    private final JdbcTemplate jdbc;

    public Orders(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
        jdbc.execute("CREATE TABLE IF NOT EXISTS orders (id BIGSERIAL PRIMARY KEY, email TEXT NOT NULL,"
                + " amount_cents BIGINT NOT NULL, state TEXT NOT NULL DEFAULT 'placed')");
    }

    long insert(String email, long amountCents) {
        GeneratedKeyHolder keys = new GeneratedKeyHolder();
        jdbc.update(c -> {
            var ps = c.prepareStatement("INSERT INTO orders (email, amount_cents) VALUES (?, ?)", new String[] {"id"});
            ps.setString(1, email);
            ps.setLong(2, amountCents);
            return ps;
        }, keys);
        return keys.getKey().longValue();
    }

    public Optional<Order> get(long id) {
        return jdbc.query("SELECT id, email, amount_cents, state FROM orders WHERE id = ?",
                (rs, n) -> new Order(rs.getLong(1), rs.getString(2), rs.getLong(3), rs.getString(4)), id).stream().findFirst();
    }

    boolean move(long id, String from, String to) {
        return jdbc.update("UPDATE orders SET state = ? WHERE id = ? AND state = ?", to, id, from) == 1;
    }
}
